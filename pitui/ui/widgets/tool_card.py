"""The tool card: state glyph (spinner while running), header, live output, diff.

A card is one widget (header and body drawn as one block of text): a long session keeps
many cards mounted, and Textual lays every mounted widget out again on each frame.
An ``edit`` / ``write`` whose arguments are complete shows the diff it would make while it
waits to run (computed off the event loop), until its result brings the real one.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from pitui.ui.view.state import ToolCardItem, ToolState
from pitui.ui.widgets.base import PANE_MARKS, ToggleRequested
from pitui.ui.widgets.messages import GLYPH_STYLES, GLYPHS
from pitui.ui.widgets.tool_renderers import renderer_for

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STATES: tuple[ToolState, ...] = ("pending", "running", "success", "error", "denied")
PREVIEW_TOOLS = frozenset({"edit", "write"})


def _has_diff(details: Any) -> bool:
    return isinstance(details, dict) and bool(details.get("diff"))


class ToolCard(Static):
    """One tool call, upserted by its id; styled by ``-<state>`` and ``-expanded`` classes."""

    DEFAULT_CLASSES = "tool-card"

    class Selected(Message):
        """The user picked this card: the screen highlights the message that made the call."""

        def __init__(self, card: ToolCard) -> None:
            super().__init__()
            self.card = card

        @property
        def control(self) -> ToolCard:
            return self.card

    def __init__(self, item: ToolCardItem) -> None:
        super().__init__()
        self.item_id = item.id
        self.item = item
        self._frame = 0
        self._timer: Timer | None = None
        self._body: Content | None = None
        self._preview: str | None = None
        self._preview_args: dict[str, Any] | None = None

    def on_mount(self) -> None:
        self._render_item()

    async def update_item(self, item: ToolCardItem) -> None:
        """Show the card's new state (called only when this card changed)."""
        self.item = item
        self._render_item()

    async def rebind(self, item: ToolCardItem) -> None:
        """Show another call, as ``ToolCard(item)`` would once mounted (not picked, no
        preview of the old call's diff)."""
        self.item_id = item.id
        self.item = item
        self.remove_class(*PANE_MARKS)
        self._frame = 0
        self._body = None
        self._preview = None
        self._preview_args = None
        self._render_item()

    def _render_item(self) -> None:
        item = self.item
        for state in STATES:
            self.set_class(item.state == state, f"-{state}")
        self.set_class(item.expanded, "-expanded")
        self._body = renderer_for(item.tool_name).body(self._shown_item())
        self._draw()
        self._sync_spinner()
        self._start_preview()

    def _shown_item(self) -> ToolCardItem:
        """The item as drawn: a waiting edit/write carries its previewed diff."""
        item = self.item
        if self._preview and item.state in ("pending", "running") and not _has_diff(item.details):
            return replace(item, details={"diff": self._preview})
        return item

    def _start_preview(self) -> None:
        item = self.item
        waiting = item.state in ("pending", "running") and item.args_complete
        if item.tool_name not in PREVIEW_TOOLS or not waiting or _has_diff(item.details):
            return
        args = dict(item.args)
        if args == self._preview_args:
            return  # computed (or being computed) for these arguments already
        self._preview_args = args
        self.run_worker(self._compute_preview(item.tool_name, args), exit_on_error=False)

    async def _compute_preview(self, tool_name: str, args: dict[str, Any]) -> None:
        from pitui.ui.approval_preview import preview_change  # pulls in the edit tool

        info = getattr(self.app, "info", None)
        cwd = getattr(info, "cwd", "") or os.getcwd()
        preview = await preview_change(tool_name, args, Path(cwd))
        if preview is None or preview.problem or preview.new_file or not preview.diff:
            return  # a new file shows its content; a failing edit reports itself when run
        if args != self._preview_args:
            return  # the arguments changed meanwhile; a newer preview is on its way
        self._preview = preview.diff
        self._render_item()

    def _glyph(self) -> Content:
        state = self.item.state
        glyph = SPINNER[self._frame % len(SPINNER)] if self._timer is not None else GLYPHS[state]
        return Content.styled(glyph, GLYPH_STYLES[state])

    def _sync_spinner(self) -> None:
        running = self.item.state == "running" and self.app.animation_level == "full"
        if running and self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        elif not running and self._timer is not None:
            self._timer.stop()
            self._timer = None
            self._draw()

    def _draw(self) -> None:
        header = renderer_for(self.item.tool_name).header(self.item)
        head = Content.assemble(self._glyph(), " ", header)
        self.update(head if self._body is None else Content.assemble(head, "\n\n", self._body))

    def _tick(self) -> None:
        self._frame += 1
        self._draw()

    def on_click(self) -> None:
        self.post_message(ToggleRequested(self.item_id))
        self.post_message(self.Selected(self))
