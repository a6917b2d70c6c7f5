"""An async stream of assistant events that also yields the final message.

The contract (PI_SPEC §1.7): once a stream exists it never raises to its consumer.
Failures, aborts and consumer cancellation all end it with exactly one terminal event,
and ``await stream.result()`` always returns the final :class:`AssistantMessage`.
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
import sys
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Any

from pitui.ai.abort import AbortSignal
from pitui.ai.events import TERMINAL_EVENT_TYPES, AssistantMessageEvent, DoneEvent, ErrorEvent
from pitui.ai.types import AssistantMessage

ABORT_MESSAGE = "Request was aborted"

_event_type = operator.attrgetter("type")
_current_task: Callable[[asyncio.AbstractEventLoop], asyncio.Task[Any] | None]
if sys.version_info >= (3, 12):
    _current_task = asyncio.current_task  # implemented in C
else:
    # 3.11's current_task(loop) is a Python function around this lookup in the dict the
    # C tasks keep up to date; __anext__ asks once per event, and the call costs ~100 ns.
    _current_task = asyncio.tasks._current_tasks.get  # type: ignore[attr-defined]


class AssistantMessageEventStream:
    """Push-based event stream. Producers :meth:`push`; consumers ``async for`` it.

    Events wait in a deque of iterators (a pushed event is a one-item iterator); a
    consumer with nothing to read sleeps on a future, which the next push completes. A
    burst of pushes between two reads of the network thus costs one wake-up, and an
    event already queued is handed over without suspending. :meth:`push_lazy` queues
    iterators that build their events only as the consumer reads them.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._events: deque[Iterator[AssistantMessageEvent]] = deque()
        # The queued iterator being read, taken off the deque: its next event is the
        # fast path of __anext__.
        self._head: Iterator[AssistantMessageEvent] = iter(())
        self._waiters: list[asyncio.Future[None]] = []
        self._result: asyncio.Future[AssistantMessage] = self._loop.create_future()
        self._finished = False
        self._on_consumer_cancel: Callable[[], None] | None = None
        self._consumer: asyncio.Task[object] | None = None

    @property
    def finished(self) -> bool:
        """True once a terminal event was pushed."""
        return self._finished

    def push(self, event: AssistantMessageEvent) -> None:
        """Queue one event. Anything pushed after the terminal event is dropped."""
        if self._finished:
            return
        self._events.append(iter((event,)))
        if self._waiters:
            self._wake()
        kind = event.type  # cheaper than isinstance on pydantic's ABC metaclass
        if kind == "done" or kind == "error":
            if isinstance(event, DoneEvent):
                self._finish(event.message)
            elif isinstance(event, ErrorEvent):
                self._finish(event.error)

    def push_many(self, events: Sequence[AssistantMessageEvent]) -> None:
        """Queue ``events`` in order, exactly as :meth:`push` of each would.

        For producers that collect a burst of events between two reads of the network:
        one call and at most one wake-up for the lot.
        """
        if not TERMINAL_EVENT_TYPES.isdisjoint(map(_event_type, events)):
            # Rare: a terminal event inside the burst. Push drops what follows it.
            for event in events:
                self.push(event)
            return
        if self._finished:
            return
        self._events.append(iter(list(events)))  # a copy: producers reuse their lists
        if self._waiters:
            self._wake()

    def push_lazy(self, sources: Iterable[Iterator[AssistantMessageEvent]]) -> None:
        """Queue the events each iterator of ``sources`` yields, in order, built when read.

        For the delta events of a burst: built one at a time as the consumer takes them,
        a burst's events are never all alive at once, which spares the garbage collector
        a pass over hundreds of young objects per network read. Each iterator must yield
        no terminal event and depend only on values that no longer change (the pieces of
        a finished run, not the live partial message's text).
        """
        if self._finished:
            return
        self._events.extend(sources)
        if self._waiters:
            self._wake()

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    def _finish(self, message: AssistantMessage) -> None:
        self._finished = True
        if not self._result.done():
            self._result.set_result(message)
        if self._consumer is not None:
            # A long-lived consumer (the agent loop) reads many streams: don't pile up.
            self._consumer.remove_done_callback(self._consumer_done)

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        return self

    async def __anext__(self) -> AssistantMessageEvent:
        # Passing the loop spares current_task() a lookup: this runs once per event.
        if _current_task(self._loop) is not self._consumer:
            self._watch_consumer()
        for event in self._head:
            return event
        return await self._next_source()

    async def _next_source(self) -> AssistantMessageEvent:
        """The next event, from the next queued iterator that has one, waiting if need be."""
        events = self._events
        while True:
            # The current iterator first: another consumer may have taken it up while
            # this one waited, and only an exhausted iterator may be replaced.
            for event in self._head:
                return event
            if events:
                self._head = events.popleft()
                continue
            if self._finished:
                # Iterating a finished stream again ends at once.
                raise StopAsyncIteration
            # One future per waiting consumer: cancelling one must not wake another.
            waiter = self._loop.create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                # The consumer gave up: the producer must stop and report an abort.
                if self._on_consumer_cancel is not None:
                    self._on_consumer_cancel()
                raise

    def _watch_consumer(self) -> None:
        # Cancellation can also land in the consumer's own code between two events;
        # a consuming task that ends cancelled before the stream did aborts it too.
        task = asyncio.current_task()
        if task is None or task is self._consumer:
            return
        self._consumer = task
        task.add_done_callback(self._consumer_done)

    def _consumer_done(self, task: asyncio.Task[object]) -> None:
        if task.cancelled() and not self._finished and self._on_consumer_cancel is not None:
            self._on_consumer_cancel()

    async def result(self) -> AssistantMessage:
        """The final message, once the stream has ended."""
        return await asyncio.shield(self._result)


StreamBody = Callable[[AssistantMessageEventStream, AssistantMessage], Awaitable[None]]


def run_stream(
    output: AssistantMessage, body: StreamBody, signal: AbortSignal | None = None
) -> AssistantMessageEventStream:
    """Run a provider's ``body`` in a task and guarantee the stream's contract.

    ``body`` pushes events and mutates ``output``; it may raise or be cancelled. Whatever
    happens, the stream ends with one terminal event carrying ``output``: ``aborted`` when
    ``signal`` fired or the consumer was cancelled, ``error`` when ``body`` raised.
    """
    stream = AssistantMessageEventStream()
    local_abort = signal or AbortSignal()

    async def supervise() -> None:
        work = asyncio.ensure_future(body(stream, output))
        aborted = asyncio.ensure_future(local_abort.wait())
        try:
            await asyncio.wait({work, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
        if not work.done():
            work.cancel()
            with contextlib.suppress(BaseException):
                await work
            _finish_failed(stream, output, aborted=True, message=ABORT_MESSAGE)
            return
        exc = None if work.cancelled() else work.exception()
        if work.cancelled() or local_abort.aborted:
            _finish_failed(stream, output, aborted=True, message=ABORT_MESSAGE)
        elif exc is not None:
            _finish_failed(stream, output, aborted=False, message=_describe(exc))
        elif not stream.finished:
            _finish_done(stream, output)

    stream._on_consumer_cancel = lambda: local_abort.abort("consumer cancelled")
    task = asyncio.ensure_future(supervise())
    _keep_alive(task)
    return stream


_RUNNING: set[asyncio.Future[None]] = set()


def _keep_alive(task: asyncio.Future[None]) -> None:
    # asyncio keeps only weak references to tasks; hold one until it finishes.
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def _finish_done(stream: AssistantMessageEventStream, output: AssistantMessage) -> None:
    reason = output.stop_reason
    if reason == "error" or reason == "aborted":
        _finish_failed(
            stream,
            output,
            aborted=reason == "aborted",
            message=output.error_message or "An unknown error occurred",
        )
        return
    stream.push(DoneEvent(reason=reason, message=output))


def _finish_failed(
    stream: AssistantMessageEventStream, output: AssistantMessage, *, aborted: bool, message: str
) -> None:
    if stream.finished:
        return
    output.stop_reason = "aborted" if aborted else "error"
    if not output.error_message:
        output.error_message = message
    stream.push(ErrorEvent(reason=output.stop_reason, error=output))


def error_stream(output: AssistantMessage, message: str) -> AssistantMessageEventStream:
    """A stream that fails at once with a lone ``error`` event (no ``start``)."""
    stream = AssistantMessageEventStream()
    _finish_failed(stream, output, aborted=False, message=message)
    return stream
