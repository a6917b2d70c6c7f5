"""Run callbacks that measure a layout only once the screen has laid out the widgets they
measure.

``call_after_refresh`` is not enough for that: the screen runs its after-refresh callbacks
when it is idle, and the layout a mount asks for reaches it as a message from the mounted
widgets, so on a loaded machine the callbacks can run first and measure the old content
(the item pane then took a pane of one-line items for a short one and mounted a batch too
many, or lost the reader's place when it mounted a batch above). The screen publishes a
signal after each layout: the callbacks wait for the first one after which what they
measure is ready (the widget placed, the row drawn at its new height).
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
    """Callbacks of ``owner`` to run after the first layout at which ``ready()`` holds (it
    is asked at each layout: what it waits for may be mounted after a callback is queued)."""

    def __init__(self, owner: Widget, ready: Callable[[], bool]) -> None:
        self._owner = owner
        self._ready = ready
        self._calls: list[Callable[[], object]] = []

    def call(self, callback: Callable[[], object]) -> None:
        """Queue ``callback`` (in order with the others) until a layout makes it ready."""
        self._calls.append(callback)
        if len(self._calls) == 1:
            signal = self._owner.screen.screen_layout_refresh_signal
            signal.subscribe(self._owner, self._laid_out)
            self._owner.refresh(layout=True)  # a layout will come, even if nothing moved

    def _laid_out(self, screen: Screen[object]) -> None:
        if not self._ready():
            return  # a layout of what was there before: wait for the next
        screen.screen_layout_refresh_signal.unsubscribe(self._owner)
        calls, self._calls = self._calls, []
        for callback in calls:
            callback()
