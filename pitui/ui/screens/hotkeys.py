"""``/hotkeys``: every binding with its keys, what it does and its id (for keybindings.json).

The rows are the action table's (``commands.actions.hotkey_rows``); this screen shows them.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


class HotkeysScreen(ModalScreen[None]):
    """A table of keys; Esc or q closes it."""

    CSS_PATH = "hotkeys.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", show=False, id="hotkeys.close"),
    ]

    def __init__(self, rows: list[tuple[str, str, str]], source: str = "") -> None:
        super().__init__()
        self.rows = rows
        """``(keys, description, action id)``; an empty id for keys that are not actions."""
        self.source = source
        """The keybindings file the keys came from ("" when there is none)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="hotkeys"):
            yield Static("Keyboard shortcuts", id="hotkeys-title")
            yield DataTable(id="hotkeys-table", cursor_type="row", zebra_stripes=True)
            hint = f"Keys from {self.source}  ·  " if self.source else ""
            yield Static(Text(f"{hint}Esc close"), id="hotkeys-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Key", "Id", "Action")  # the id before the (long) description
        for n, (keys, description, action_id) in enumerate(self.rows):
            key = action_id or f"fixed-{n}"  # the fixed keys repeat (Enter, Esc)
            table.add_row(Text(keys), Text(action_id), Text(description), key=key)
        table.focus()

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
