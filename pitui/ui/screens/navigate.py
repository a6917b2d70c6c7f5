"""Navigating the tree: pi's chooser (no summary / summarize / custom prompt), with
**Restore files (N)** and a preview next to the choices when the point's files differ
from the working tree, and the multi-line input for a custom summary prompt (PI_SPEC §7,
step 12).

The chooser opens at once (the next keys of a burst must reach it); the files are compared
meanwhile and offered when known (:meth:`SummaryChooser.offer_files`). A choice made
before they are known waits for them, then keeps the default (restore them), which the
notice after the move reports (with its undo).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, TypeAlias

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from pitui.core.checkpoints.file_diffs import FileDiff
from pitui.ui.widgets.key_gate import hold_app_keys

if TYPE_CHECKING:
    from pitui.ui.widgets.key_gate import KeyHold

SummaryChoice: TypeAlias = Literal["none", "summary", "custom"]
CHOICES: tuple[tuple[SummaryChoice, str], ...] = (
    ("none", "No summary"),
    ("summary", "Summarize"),
    ("custom", "Summarize with custom prompt"),
)
_FILES, _PREVIEW = "files", "preview"
_HINT = "↑↓ move · Enter choose · Esc back to the tree"
_FILES_HINT = "↑↓ move · Enter choose · r files on/off · p preview · Esc back"


@dataclass(frozen=True, slots=True)
class Navigation:
    """What the chooser decided: the summary, and whether the point's files come along."""

    summary: SummaryChoice
    restore_files: bool = False


def restore_prompt(count: int, on: bool) -> Content:
    """The files row: ``[x] Restore files (3)`` (plain text: brackets are not markup)."""
    if on:
        return Content(f"[x] Restore files ({count})")
    return Content(f"[ ] Restore files ({count}) — the files stay as they are")


class SummaryChooser(ModalScreen[Navigation | None]):
    """Whether to summarise the branch being left, and (when they differ) whether the
    point's files come along; Esc goes back to the tree."""

    CSS_PATH = "navigate.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "back", show=False, id="navigate.cancel"),
        Binding("r", "toggle_files", "restore files", show=False, id="navigate.toggleFiles"),
        Binding("p", "preview_files", "preview", show=False, id="navigate.previewFiles"),
    ]

    def __init__(self, target: str, *, files_pending: bool = False) -> None:
        super().__init__()
        self.target = target
        self.diffs: list[FileDiff] | None = None
        """The point's files against the working tree, once offered."""
        self.restore_files = True
        self._files_pending = files_pending
        self._chosen_early: SummaryChoice | None = None
        self._answered = False
        self._key_hold: KeyHold | None = None
        """Keys held since Enter on a choice (see :meth:`hold_keys_for_pick`)."""
        self._files_shown = False
        """The files rows are in the list (composed with it, or added since)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="navigate-dialog", classes="pitui-dialog"):
            yield Static("Summarize the branch you are leaving?", classes="dialog-title")
            yield Static(self.target, id="navigate-target", classes="dialog-detail", markup=False)
            choices = [Option(text, id=key) for key, text in CHOICES]
            yield OptionList(*choices, *self._files_options(), id="navigate-list")
            yield Static(self._hint(), id="navigate-hint", classes="dialog-hint")

    def _files_options(self) -> list[Option | None]:
        """The files rows (after a separator), once the files are known to differ."""
        if not self.diffs:
            return []
        self._files_shown = True
        toggle = Option(restore_prompt(len(self.diffs), self.restore_files), id=_FILES)
        return [None, toggle, Option("Preview the file changes", id=_PREVIEW)]

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()
        self._show_files()  # offered between compose and mount: not shown yet

    def hold_keys_for_pick(self) -> None:
        """Enter on a summary choice ends the chooser, but a fast typist's next keys
        reach the app before the choice is handled: hold them (once, see
        :class:`~pitui.ui.widgets.key_gate.Picks`), and the move lets them go once the
        composer (or the custom prompt) has the focus (:meth:`let_keys_go`), instead of
        this list eating them."""
        option = self.query_one("#navigate-list", OptionList).highlighted_option
        if self._key_hold is None and option is not None and option.id in _CHOICE_IDS:
            self._key_hold = hold_app_keys(self.app)

    def let_keys_go(self) -> None:
        """The keys held since the choice go on, to what has the focus now."""
        held, self._key_hold = self._key_hold, None
        if held is not None:
            held.release()

    @property
    def comparing(self) -> bool:
        """True while the point's files are being compared."""
        return self._files_pending

    def _hint(self) -> str:
        if self._chosen_early is not None:
            return "Comparing the files…"
        hint = _FILES_HINT if self.diffs else _HINT
        return hint + (" · comparing files…" if self._files_pending else "")

    # ------------------------------------------------------------------ files

    def offer_files(self, diffs: list[FileDiff] | None) -> None:
        """The files of the point are known: ``diffs`` (working tree → the point), or
        None / empty when nothing would change (then nothing is said)."""
        self._files_pending = False
        self.diffs = diffs or None
        if self._answered:
            return
        if self._chosen_early is not None:
            self._finish(self._chosen_early)
            return
        self._show_files()

    def _show_files(self) -> None:
        """The files rows and the hint as the files are now known (or still compared)."""
        lists = self.query(OptionList)
        if not lists:
            return  # not mounted yet (compose or on_mount shows them)
        options = lists.first()
        if self.diffs and not self._files_shown:
            options.add_options(self._files_options())
        self.query_one("#navigate-hint", Static).update(self._hint())

    def action_toggle_files(self) -> None:
        if not self.diffs:
            return
        self.restore_files = not self.restore_files
        prompt = restore_prompt(len(self.diffs), self.restore_files)
        self.query_one(OptionList).replace_option_prompt(_FILES, prompt)

    def action_preview_files(self) -> None:
        if self.diffs:
            from pitui.ui.screens.files_restore import FilesPreview

            self.app.push_screen(FilesPreview(self.target, self.diffs))

    # ------------------------------------------------------------------ choices

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        key = event.option.id
        if key == _FILES:
            self.action_toggle_files()
            return
        if key == _PREVIEW:
            self.action_preview_files()
            return
        choice = next((k for k, _ in CHOICES if k == key), None)
        if choice is None:
            return
        if self._files_pending:  # the files are being compared: decide once they are known
            self._chosen_early = choice
            self.query_one("#navigate-hint", Static).update(self._hint())
            return
        self._finish(choice)

    def _finish(self, choice: SummaryChoice) -> None:
        self._answered = True
        self.dismiss(Navigation(choice, bool(self.diffs) and self.restore_files))

    def action_cancel(self) -> None:
        self._answered = True
        self.dismiss(None)


_CHOICE_IDS = frozenset(key for key, _ in CHOICES)


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
