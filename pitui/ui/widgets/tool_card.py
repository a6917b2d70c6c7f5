"""The tool card: state glyph (spinner while running), header, live output, diff."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from pitui.ui.state import ToolCardItem
from pitui.ui.widgets.base import ToggleRequested
from pitui.ui.widgets.messages import GLYPH_STYLES, GLYPHS
from pitui.ui.widgets.tool_renderers import renderer_for

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class ToolCard(Vertical):
    """One tool call, upserted by its id; styled by ``-<state>`` and ``-expanded`` classes."""

    DEFAULT_CLASSES = "tool-card"

    def __init__(self, item: ToolCardItem) -> None:
        super().__init__()
        self.item_id = item.id
        self.item = item
        self._frame = 0
        self._timer: Timer | None = None
        self._header = Static(classes="tool-header")
        self._body = Static(classes="tool-body")

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        self._render_item()

    async def update_item(self, item: ToolCardItem) -> None:
        """Show the card's new state (called only when this card changed)."""
        self.item = item
        self._render_item()

    def _render_item(self) -> None:
        item = self.item
        renderer = renderer_for(item.tool_name)
        self.set_classes(f"tool-card -{item.state}" + (" -expanded" if item.expanded else ""))
        self._draw_header()
        body = renderer.body(item)
        self._body.display = body is not None
        if body is not None:
            self._body.update(body)
        self._sync_spinner()

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
            self._draw_header()

    def _draw_header(self) -> None:
        header = renderer_for(self.item.tool_name).header(self.item)
        self._header.update(Content.assemble(self._glyph(), " ", header))

    def _tick(self) -> None:
        self._frame += 1
        self._draw_header()

    def on_click(self) -> None:
        self.post_message(ToggleRequested(self.item_id))
