"""Run callbacks that measure a layout only once the screen has laid out the widgets they
measure.

``call_after_refresh`` is not enough for that: the screen runs its after-refresh callbacks
when it is idle, and the layout a mount asks for reaches it as a message from the mounted
widgets, so on a loaded machine the callbacks can run first and measure the old content
(the item pane then took a pane of one-line items for a short one and mounted a batch too
many, or lost the reader's place when it mounted a batch above). The screen publishes a
signal after each layout: the callbacks wait for the first one that placed the widget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.errors import NoWidget

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget


def placed(screen: Screen[object], widget: Widget) -> bool:
    """Whether ``screen``'s last layout placed ``widget`` (a hidden widget counts as placed:
    no layout will)."""
    if not widget.display:
        return True
    try:
        screen.find_widget(widget)
    except NoWidget:
        return False
    return True


class AfterLayout:
    """Callbacks of ``owner`` to run after the layout that placed ``target()`` (checked at
    each layout: the widget to wait for may be mounted after the callback is queued;
    ``None`` means nothing to wait for)."""

    def __init__(self, owner: Widget, target: Callable[[], Widget | None]) -> None:
        self._owner = owner
        self._target = target
        self._calls: list[Callable[[], object]] = []

    def call(self, callback: Callable[[], object]) -> None:
        """Queue ``callback`` (in order with the others) until the target is laid out."""
        self._calls.append(callback)
        if len(self._calls) == 1:
            signal = self._owner.screen.screen_layout_refresh_signal
            signal.subscribe(self._owner, self._laid_out)
            self._owner.refresh(layout=True)  # a layout will come, even if nothing moved

    def _laid_out(self, screen: Screen[object]) -> None:
        target = self._target()
        if target is not None and not placed(screen, target):
            return  # a layout of what was there before: wait for the next
        screen.screen_layout_refresh_signal.unsubscribe(self._owner)
        calls, self._calls = self._calls, []
        for callback in calls:
            callback()
