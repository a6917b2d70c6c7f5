"""The context inspector (``/context``): exactly what the model receives on the next request.

The report is :mod:`pitui.core.context_report`'s, built by the request's own code, so what
this screen shows is what ``pitui session context FILE --json`` prints for the same leaf.
Enter on a row shows that item whole, as sent; ``c`` there copies it; Esc goes back.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static, TextArea

from pitui.core.context_report import ContextReport
from pitui.core.sanitize import inert
from pitui.ui.view.context_rows import (
    COLUMNS,
    InspectorRow,
    inspector_rows,
    row_detail,
    summary_line,
)

_ROW_STYLES = {  # row kind → (style, theme token of its colour)
    "heading": ("bold", "pi-accent"),
    "note": ("italic", "pi-warning"),
    "unsent": ("", "pi-muted"),
}
CONTENT_WIDTH = 200
"""Cells are cut to this (the table scrolls sideways; Enter shows an item whole)."""


def _cell(text: str, style: Style | None) -> Text:
    # Rich text, which the table measures for its column widths.
    shown = inert(text)
    return Text(shown[:CONTENT_WIDTH], style=style or "", no_wrap=True, end="")


class ContextScreen(ModalScreen[None]):
    """The table of the next request; Enter shows a row whole, Esc closes."""

    CSS_PATH = "context.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", show=False, id="context.close"),
    ]

    def __init__(self, report: ContextReport) -> None:
        super().__init__()
        self.report = report
        self.rows: list[InspectorRow] = inspector_rows(report)

    def compose(self) -> ComposeResult:
        with Vertical(id="context"):
            yield Static("Context: what the model sees", id="context-title")
            yield Static(Content(inert(summary_line(self.report))), id="context-summary")
            yield DataTable(id="context-table", cursor_type="row", zebra_stripes=False)
            yield Static("Enter show as sent  ·  Esc close", id="context-hint")

    def _styles(self) -> dict[str, Style]:
        colours = self.app.get_css_variables()
        return {
            kind: Style.parse(f"{style} {colours.get(token, '')}".strip())
            for kind, (style, token) in _ROW_STYLES.items()
        }

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        styles = self._styles()
        for row in self.rows:
            style = styles.get(row.kind)
            table.add_row(*(_cell(cell, style) for cell in row.cells), key=row.key)
        table.focus()
        if len(self.rows) > 1:
            table.move_cursor(row=1)  # the system prompt, not the first heading

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        detail = row_detail(self.report, key) if key is not None else None
        if detail is not None:
            self.app.push_screen(ContextDetailScreen(*detail))

    def action_close(self) -> None:
        """Back to the conversation."""
        self.dismiss(None)


class ContextDetailScreen(ModalScreen[None]):
    """One item of the request, whole; ``c`` copies it, Esc goes back."""

    CSS_PATH = "context.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", show=False, id="context.detail.close"),
        Binding("c", "copy", "copy", show=False, id="context.detail.copy"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="context-detail"):
            yield Static(Content(inert(self.title_text)), id="context-detail-title")
            yield TextArea(inert(self.text), read_only=True, soft_wrap=True, id="context-text")
            yield Static("c copy  ·  Esc back", id="context-hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_copy(self) -> None:
        """Copy the whole item (OSC 52)."""
        self.app.copy_to_clipboard(self.text)
        self.notify(f"Copied {self.title_text}", timeout=2)

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)
