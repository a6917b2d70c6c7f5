"""The event bridge: a lone event goes at once; a stream is still batched per frame."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from textual.message import Message
from textual.message_pump import MessagePump

from pitui.ui.live.bridge import AgentEventBatch, EventBridge, Listener


class _Target:
    """Records the batches posted (the app's message pump, as the bridge sees it)."""

    def __init__(self) -> None:
        self.posted: list[tuple[float, tuple[Any, ...]]] = []

    def post_message(self, message: Message) -> bool:
        assert isinstance(message, AgentEventBatch)
        self.posted.append((asyncio.get_running_loop().time(), message.events))
        return True


def _bridge(frame: float) -> tuple[EventBridge, _Target, list[Listener]]:
    target, listeners = _Target(), []

    def subscribe(listener: Listener) -> Any:
        listeners.append(listener)
        return lambda: listeners.remove(listener)

    bridge = EventBridge(cast(MessagePump, target), subscribe, frame_seconds=frame)
    bridge.start()
    return bridge, target, listeners


async def test_a_lone_event_is_posted_without_waiting_a_frame() -> None:
    bridge, target, listeners = _bridge(frame=5.0)  # a frame far longer than the test
    start = asyncio.get_running_loop().time()
    listeners[0](cast(Any, "changed"))
    listeners[0](cast(Any, "and more, before the loop turns"))
    await asyncio.sleep(0.01)
    assert [events for _, events in target.posted] == [
        ("changed", "and more, before the loop turns")
    ]
    assert target.posted[0][0] - start < 1.0
    bridge.stop()


async def test_events_within_a_frame_of_a_post_wait_for_the_next_frame() -> None:
    bridge, target, listeners = _bridge(frame=0.05)
    listeners[0](cast(Any, 1))
    await asyncio.sleep(0)  # posted at once
    for n in range(2, 12):
        listeners[0](cast(Any, n))
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.1)
    assert [events for _, events in target.posted] == [(1,), tuple(range(2, 12))]
    (first, _), (second, _) = target.posted
    assert second - first >= 0.049
    bridge.stop()
