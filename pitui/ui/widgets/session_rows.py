"""The resume picker's list: one line per session, only the visible window drawn.

Drawing cost is the window's height, not the list's length: 3,000 sessions draw as fast
as 30. A row is pi's: cursor, fork-tree prefix, name or first message (named sessions
warm, the current one accented, one about to be deleted red), then right-aligned the
cwd (all-folders scope), message count and age.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from pitui.core.sanitize import inert
from pitui.core.session.listing_view import PickerRow, row_details, row_title
from pitui.ui.view.format import shorten_path


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis."""
    if cell_len(text) <= width:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > width - 1:
            break
        out += char
    return out + "…"


class SessionRows(Widget, can_focus=True):
    """A windowed list of :class:`PickerRow`; the screen moves the selection."""

    DEFAULT_CSS = "SessionRows { height: 1fr; }"

    class Picked(Message):
        """A row was double-clicked (or clicked when already selected)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[PickerRow] = ()
        self.selected = 0
        self.top = 0
        self.show_cwd = False
        self.current_path: str | None = None
        self.deleting: str | None = None
        self.empty_text = ""
        self.now_ms = 0
        """Ages are measured from this (0: the time of drawing)."""

    def show(self, rows: Sequence[PickerRow], *, show_cwd: bool, keep: str | None = None) -> None:
        """New rows; the selection stays on the session ``keep`` when it is still listed."""
        self.rows = rows
        self.show_cwd = show_cwd
        if keep is not None:
            index = next((i for i, r in enumerate(rows) if r.info.path == keep), None)
            if index is not None:
                self.selected = index
        self.selected = max(0, min(self.selected, len(rows) - 1))
        self.refresh()

    @property
    def selected_row(self) -> PickerRow | None:
        """The row under the cursor."""
        return self.rows[self.selected] if 0 <= self.selected < len(self.rows) else None

    def move(self, step: int) -> None:
        """Move the selection (clamped, as pi)."""
        if self.rows:
            self.selected = max(0, min(len(self.rows) - 1, self.selected + step))
            self.refresh()

    @property
    def page(self) -> int:
        """Rows per page."""
        return max(1, self.size.height)

    def _window(self) -> range:
        height = max(1, self.size.height)
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + height:
            self.top = self.selected - height + 1
        self.top = max(0, min(self.top, max(0, len(self.rows) - height)))
        return range(self.top, min(len(self.rows), self.top + height))

    def render(self) -> Content:
        if not self.rows:
            return Content.styled(self.empty_text, "$pi-muted")
        now = self.now_ms or int(time.time() * 1000)
        width = max(20, self.size.width)
        lines = [self._line(self.rows[i], i == self.selected, now, width) for i in self._window()]
        return Content("\n").join(lines)

    def _line(self, row: PickerRow, selected: bool, now: int, width: int) -> Content:
        info = row.info
        right = row_details(info, now)
        if self.show_cwd and info.cwd and info.error is None:
            right = f"{shorten_path(info.cwd)} {right}"
        cursor = "› " if selected else "  "
        room = max(10, width - 2 - cell_len(row.prefix) - cell_len(right) - 2)
        title = _fit(inert(row_title(info)), room)
        style = ""
        if info.path == self.deleting or info.error is not None:
            style = "$pi-error"
        elif info.path == self.current_path:
            style = "$pi-accent"
        elif info.name:
            style = "$pi-warning"
        if selected:
            style = f"{style} bold".strip()
        used = 2 + cell_len(row.prefix) + cell_len(title)
        gap = " " * max(1, width - used - cell_len(right))
        line = Content.assemble(
            (cursor, "$pi-accent"),
            (row.prefix, "$pi-dim"),
            (title, style),
            gap,
            (right, "$pi-error" if info.path == self.deleting else "$pi-dim"),
        )
        return line.stylize("on $pi-selectedBg") if selected else line

    def on_click(self, event: events.Click) -> None:
        index = self.top + event.y
        if not 0 <= index < len(self.rows):
            return
        if index == self.selected or event.chain >= 2:
            self.post_message(self.Picked(index))
        self.selected = index
        self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.move(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.move(-3)
