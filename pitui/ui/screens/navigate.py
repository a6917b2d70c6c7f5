"""Navigating the tree: pi's chooser (no summary / summarize / custom prompt) and the
multi-line input for a custom summary prompt (PI_SPEC §7, step 12)."""

from __future__ import annotations

from typing import ClassVar, Literal, TypeAlias

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

SummaryChoice: TypeAlias = Literal["none", "summary", "custom"]
CHOICES: tuple[tuple[SummaryChoice, str], ...] = (
    ("none", "No summary"),
    ("summary", "Summarize"),
    ("custom", "Summarize with custom prompt"),
)


class SummaryChooser(ModalScreen[SummaryChoice | None]):
    """Whether to summarise the branch being left; Esc goes back to the tree."""

    CSS_PATH = "navigate.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "back", show=False, id="navigate.cancel"),
    ]

    def __init__(self, target: str) -> None:
        super().__init__()
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical(id="navigate-dialog", classes="pitui-dialog"):
            yield Static("Summarize the branch you are leaving?", classes="dialog-title")
            yield Static(self.target, id="navigate-target", classes="dialog-detail", markup=False)
            yield OptionList(*(Option(text, id=key) for key, text in CHOICES), id="navigate-list")
            yield Static("↑↓ move · Enter choose · Esc back to the tree", classes="dialog-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        key = event.option.id
        choice = next((k for k, _ in CHOICES if k == key), None)
        self.dismiss(choice)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptArea(TextArea):
    """Enter submits, Shift+Enter / Ctrl+J add a line (as in the composer)."""

    def on_key(self, event: Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            screen = self.screen
            if isinstance(screen, CustomPromptScreen):
                screen.submit()
        elif event.key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.insert("\n")


class CustomPromptScreen(ModalScreen[str | None]):
    """What the summary should focus on (appended to pi's instructions)."""

    CSS_PATH = "navigate.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "back", show=False, id="prompt.cancel"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-dialog", classes="pitui-dialog"):
            yield Static("Custom summary instructions", classes="dialog-title")
            yield PromptArea(id="prompt-text", soft_wrap=True, show_line_numbers=False)
            yield Static("Enter summarize · Shift+Enter new line · Esc back", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(PromptArea).focus()

    def submit(self) -> None:
        text = self.query_one(PromptArea).text.strip()
        self.dismiss(text or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
