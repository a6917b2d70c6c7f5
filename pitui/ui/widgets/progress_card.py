"""The card of a long operation under way (:class:`~pitui.ui.view.state.ProgressItem`):
its title, the time it has taken (ticking), what it does and how to cancel it.

The card ticks only while it runs; a finished card is hidden (its item stays, ended).
Tests freeze :attr:`ProgressCard.clock` for deterministic pictures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual.content import Content
from textual.timer import Timer

from pitui.core.sanitize import inert
from pitui.ui.view.progress import elapsed_text
from pitui.ui.view.state import ChatItem, ProgressItem
from pitui.ui.widgets.base import ItemStatic

SPINNER = "◐◓◑◒"
TICK_SECONDS = 0.5


class ProgressCard(ItemStatic):
    """A progress card in the conversation."""

    clock: ClassVar[Callable[[], float]] = time.monotonic
    """Where the elapsed time is read (monotonic seconds)."""

    def __init__(self, item: ProgressItem) -> None:
        self._since = item.started_at if item.started_at is not None else type(self).clock()
        self._timer: Timer | None = None
        super().__init__(item)

    def classes_for(self, item: ChatItem) -> str:
        assert isinstance(item, ProgressItem)
        return "-finished" if item.finished else ""

    def on_mount(self) -> None:
        self.display = not self._finished
        if not self._finished:
            self._timer = self.set_interval(TICK_SECONDS, self._tick)

    @property
    def _finished(self) -> bool:
        item = self.item
        return isinstance(item, ProgressItem) and item.finished

    def _tick(self) -> None:
        if isinstance(self.item, ProgressItem):
            self.update(self.render_item(self.item))

    async def update_item(self, item: Any) -> None:
        await super().update_item(item)
        if self._finished:
            self.display = False
            if self._timer is not None:
                self._timer.stop()
                self._timer = None

    def render_item(self, item: ProgressItem) -> Content:
        elapsed = type(self).clock() - self._since
        glyph = SPINNER[int(elapsed / TICK_SECONDS) % len(SPINNER)]
        parts = [
            Content.assemble(
                (f"{glyph} ", "$pi-accent"),
                (inert(item.title), "bold"),
                ("  " + elapsed_text(elapsed), "$pi-muted"),
            )
        ]
        if item.detail:
            parts.append(Content.styled(inert(item.detail), "$pi-muted"))
        if item.cancel_hint:
            parts.append(Content.styled(item.cancel_hint, "$pi-dim"))
        return Content("\n").join(parts)
