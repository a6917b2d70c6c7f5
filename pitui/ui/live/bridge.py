"""The one place AgentEvents (and the session's own events) cross into Textual.

The bridge subscribes to an event source (``subscribe(listener) -> unsubscribe``), buffers
what arrives and posts it to the app once per frame as a single :class:`AgentEventBatch`
message, so the UI updates at most ~60 times a second however fast tokens stream. An
event after a quiet frame goes at once (with whatever else arrives before the loop turns):
waiting a frame for it would only delay a lone change, such as a switch of branch.
Listeners may be called from the app's event loop or from another thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:  # the event models load with the session, after the first frame
    from pitui.core.session_events import SessionEvent

Listener = Callable[["SessionEvent"], None]
Unsubscribe = Callable[[], None]
Subscribe = Callable[[Listener], Unsubscribe]

FRAME_SECONDS = 1 / 60


class AgentEventBatch(Message):
    """The SessionEvents of one frame, in arrival order."""

    def __init__(self, events: Sequence[SessionEvent]) -> None:
        super().__init__()
        self.events = tuple(events)


class EventBridge:
    """Feeds an event source into a Textual message pump, batched per frame."""

    def __init__(
        self, target: MessagePump, subscribe: Subscribe, frame_seconds: float = FRAME_SECONDS
    ) -> None:
        self._target = target
        self._subscribe = subscribe
        self._frame = frame_seconds
        self._pending: list[SessionEvent] = []
        self._handle: asyncio.Handle | None = None
        self._flushed = float("-inf")
        """Loop time of the last post (the next one waits until a frame after it)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0
        self._unsubscribe: Unsubscribe | None = None

    def start(self) -> None:
        """Subscribe; must be called from the app's event loop."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._unsubscribe = self._subscribe(self._on_event)

    def stop(self) -> None:
        """Unsubscribe and deliver whatever is still buffered."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.flush()

    def _on_event(self, event: SessionEvent) -> None:
        if self._loop is None:
            return
        if threading.get_ident() == self._thread:
            self._enqueue(event)
        else:
            self._loop.call_soon_threadsafe(self._enqueue, event)

    def _enqueue(self, event: SessionEvent) -> None:
        self._pending.append(event)
        loop = self._loop
        if self._handle is None and loop is not None:
            wait = self._flushed + self._frame - loop.time()
            if wait > 0:
                self._handle = loop.call_later(wait, self.flush)
            else:
                self._handle = loop.call_soon(self.flush)

    def flush(self) -> None:
        """Post the buffered events now (normally called by the frame timer)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._pending:
            events, self._pending = self._pending, []
            if self._loop is not None:
                self._flushed = self._loop.time()
            self._target.post_message(AgentEventBatch(events))


def replay_source(events: Sequence[SessionEvent]) -> tuple[Subscribe, Callable[[], None]]:
    """A source that emits recorded ``events`` when ``emit()`` is called (tests, demos).

    Returns ``(subscribe, emit)``.
    """
    listeners: list[Listener] = []

    def subscribe(listener: Listener) -> Unsubscribe:
        listeners.append(listener)
        return lambda: listeners.remove(listener)

    def emit() -> None:
        for event in events:
            for listener in list(listeners):
                listener(event)

    return subscribe, emit
