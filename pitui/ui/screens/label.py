"""Shift+L in the Branches pane: edit an entry's label (empty clears it, PI_SPEC §5.9)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from pitui.ui.widgets.key_gate import EnterHoldsKeys


class LabelEditor(EnterHoldsKeys, ModalScreen[str | None]):
    """Dismisses with the new label ("" clears it) or None when cancelled."""

    CSS_PATH = "label.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False, id="label.cancel"),
    ]

    def __init__(self, row_text: str, label: str | None) -> None:
        super().__init__()
        self.row_text = row_text
        self.label = label or ""

    def compose(self) -> ComposeResult:
        with Vertical(id="label-dialog"):
            yield Static("Label", id="label-title")
            yield Static(self.row_text, id="label-row", markup=False)
            yield Input(self.label, placeholder="label (empty clears)", id="label-input")
            yield Static("Enter save · empty clears · Esc cancel", id="label-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
