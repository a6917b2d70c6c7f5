"""The card of a long operation (:class:`~pitui.ui.view.state.ProgressItem`): while it
runs, its title, the time it has taken (ticking), how to cancel it and a detail line;
then its outcome in its place (or nothing, when the outcome shows elsewhere).

Tests freeze :attr:`ProgressCard.clock` for deterministic pictures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual.content import Content
from textual.timer import Timer

from pitui.core.sanitize import inert
from pitui.ui.view.format import elapsed_text
from pitui.ui.view.state import ChatItem, ProgressItem
from pitui.ui.widgets.base import ItemStatic


class ProgressCard(ItemStatic):
    """A progress card in the conversation."""

    TICK_SECONDS: ClassVar[float] = 0.1
    clock: ClassVar[Callable[[], float]] = time.monotonic
    """Where the elapsed time is read (monotonic seconds)."""

    def __init__(self, item: ProgressItem) -> None:
        self._since = item.started if item.started is not None else type(self).clock()
        self._timer: Timer | None = None
        super().__init__(item)

    @property
    def _in_progress(self) -> bool:
        return isinstance(self.item, ProgressItem) and self.item.outcome is None

    def on_mount(self) -> None:
        self._show_or_hide()
        if self._in_progress:
            self._timer = self.set_interval(self.TICK_SECONDS, self._tick)

    def _tick(self) -> None:
        if self._in_progress and isinstance(self.item, ProgressItem):
            self.update(self.render_item(self.item))
        elif self._timer is not None:
            self._timer.stop()
            self._timer = None

    async def update_item(self, item: Any) -> None:
        await super().update_item(item)
        self._show_or_hide()

    async def rebind(self, item: Any) -> None:
        """Another operation's card, timed from its own start."""
        self._since = item.started if item.started is not None else type(self).clock()
        await super().rebind(item)
        self._show_or_hide()
        running = self._in_progress
        if running and self._timer is None:
            self._timer = self.set_interval(self.TICK_SECONDS, self._tick)
        elif not running and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _show_or_hide(self) -> None:
        item = self.item
        self.display = not (isinstance(item, ProgressItem) and item.outcome == "")

    def classes_for(self, item: ChatItem) -> str:
        assert isinstance(item, ProgressItem)
        return "-running" if item.outcome is None else f"-{item.level}"

    def render_item(self, item: ProgressItem) -> Content:
        if item.outcome is not None:
            return Content(inert(item.outcome))
        elapsed = type(self).clock() - self._since
        head = Content.assemble(
            (f"◌ {inert(item.title)}… ", "$pi-accent"),
            (elapsed_text(elapsed), "$pi-text"),
            (f"  ({item.cancel_hint})" if item.cancel_hint else "", "$pi-muted"),
        )
        if not item.detail:
            return head
        return Content.assemble(head, "\n", (inert(item.detail), "$pi-muted"))
