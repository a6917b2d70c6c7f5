"""``/fork``: pick a user message (any branch, newest first) to fork a new session at."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pitui.core.fuzzy import fuzzy_filter
from pitui.core.sanitize import inert
from pitui.ui.widgets.key_gate import FLOW_HOLD_AT_MOST_S, KeyHold, hold_app_keys, let_go

PREVIEW = 160


def _one_line(text: str) -> str:
    flat = " ".join(inert(text).split())
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"


class ForkPicker(ModalScreen[str | None]):
    """Search the user messages; Enter forks at one (dismisses with its entry id)."""

    CSS_PATH = "fork.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False, id="fork.cancel"),
        Binding("up", "move(-1)", "up", show=False, priority=True, id="fork.up"),
        Binding("down", "move(1)", "down", show=False, priority=True, id="fork.down"),
    ]

    def __init__(
        self,
        points: list[tuple[str, str]],
        title: str = "Fork from a message (a new session file)",
        verb: str = "fork",
    ) -> None:
        super().__init__()
        self.points = points
        self.title_text = title
        self.verb = verb
        self.shown: list[tuple[str, str]] = []
        self._has_picked = False
        self.key_hold: KeyHold | None = None
        """The keys typed since the pick, held until the flow it starts lets them go
        (its Restore files question is open, or none is asked)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="fork-picker"):
            yield Static(self.title_text, id="fork-title")
            yield Input(placeholder="Search messages", id="fork-search")
            yield OptionList(id="fork-list")
            yield Static(f"↑↓ move · Enter {self.verb} · Esc cancel", id="fork-hint")

    def on_mount(self) -> None:
        self.refilter("")
        self.query_one(Input).focus()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#fork-list", OptionList)

    def refilter(self, query: str) -> None:
        self.shown = fuzzy_filter(self.points, query, lambda p: p[1]) if query else self.points
        options = self.option_list
        options.clear_options()
        options.add_options([Option(_one_line(text), id=eid) for eid, text in self.shown])
        if self.shown:
            options.highlighted = 0
        else:
            options.add_option(Option("  No messages to fork from", disabled=True))

    @on(Input.Changed, "#fork-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.refilter(event.value)

    @on(Input.Submitted, "#fork-search")
    def _submitted(self) -> None:
        self.action_pick()

    @on(OptionList.OptionSelected, "#fork-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.option_list.highlighted = event.option_index
        self.action_pick()

    def action_move(self, step: int) -> None:
        if self.shown:
            index = self.option_list.highlighted or 0
            self.option_list.highlighted = (index + step) % len(self.shown)

    def hold_keys_for_pick(self) -> None:
        if self.key_hold is None and self._pickable() is not None:
            self.key_hold = hold_app_keys(self.app, FLOW_HOLD_AT_MOST_S)

    def _pickable(self) -> str | None:
        index = self.option_list.highlighted
        return self.shown[index][0] if index is not None and 0 <= index < len(self.shown) else None

    def action_pick(self) -> None:
        if self._has_picked:
            return  # a second Enter before the first one's pick was handled
        entry_id = self._pickable()
        if entry_id is None:
            self.key_hold, held = None, self.key_hold
            let_go(held)
            return
        self._has_picked = True
        self.hold_keys_for_pick()
        self.dismiss(entry_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
