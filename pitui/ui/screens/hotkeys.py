"""``/hotkeys``: every binding with its keys, what it does and its id (for keybindings.json)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from pitui.core.keybindings import ACTIONS, Keybindings, display_key

FIXED_ROWS: tuple[tuple[str, str], ...] = (
    ("/", "Slash commands"),
    ("!", "Run bash command"),
    ("!!", "Run bash command (excluded from context)"),
    ("Esc Esc", "Empty editor: focus the branch tree (doubleEscapeAction)"),
)
"""Keys that are not bindings but belong on the list (as pi's ``/hotkeys`` has them)."""

TREE_ROWS: tuple[tuple[str, str], ...] = (
    ("↑ / ↓", "Branches: move (wraps around)"),
    ("PgUp / PgDn, Home / End", "Branches: page, first, last"),
    ("← / →", "Branches: fold or previous branch point / unfold or next"),
    ("Enter", "Branches: go to the selected entry (optionally summarizing the branch left)"),
    ("Shift+L", "Branches: edit the label (empty clears)"),
    ("Shift+F", "Branches: fork a new session at the selected entry"),
    ("Ctrl+D / T / U / L / A", "Branches: filter default / no tools / user / labeled / all"),
    ("Ctrl+O, Shift+Ctrl+O", "Branches: next / previous filter"),
    ("typing, Backspace", "Branches: search (every word, any case)"),
    ("Esc", "Branches: clear the search, else back to the editor"),
)
"""The Branches pane's own keys (typing searches there, so they are fixed)."""


def hotkey_rows(bindings: Keybindings) -> list[tuple[str, str, str]]:
    """``(keys, description, action id)`` for every action, in the table's order."""
    rows = []
    for action in ACTIONS:
        keys = bindings.keys_for(action.id)
        shown = " / ".join(display_key(k) for k in keys) if keys else "(unbound)"
        rows.append((shown, action.description, action.id))
    rows += [(key, description, "") for key, description in (*FIXED_ROWS, *TREE_ROWS)]
    return rows


class HotkeysScreen(ModalScreen[None]):
    """A table of keys; Esc or q closes it."""

    CSS_PATH = "hotkeys.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", show=False, id="hotkeys.close"),
    ]

    def __init__(self, bindings: Keybindings, source: str = "") -> None:
        super().__init__()
        self.bindings = bindings
        self.source = source

    def compose(self) -> ComposeResult:
        with Vertical(id="hotkeys"):
            yield Static("Keyboard shortcuts", id="hotkeys-title")
            yield DataTable(id="hotkeys-table", cursor_type="row", zebra_stripes=True)
            hint = f"Keys from {self.source}  ·  " if self.source else ""
            yield Static(Text(f"{hint}Esc close"), id="hotkeys-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Key", "Id", "Action")  # the id before the (long) description
        for keys, description, action_id in hotkey_rows(self.bindings):
            table.add_row(Text(keys), Text(action_id), Text(description), key=action_id or keys)
        table.focus()

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
