"""AssistantMessageEventStream: bursts (push_many, push_lazy) and waiting consumers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from pitui.ai.event_stream import AssistantMessageEventStream, run_stream
from pitui.ai.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextStartEvent,
)
from pitui.ai.types import AssistantMessage

TIMEOUT = 5.0


def new_output() -> AssistantMessage:
    return AssistantMessage(api="demo", provider="demo", model="echo")


def deltas(out: AssistantMessage, *pieces: str) -> list[AssistantMessageEvent]:
    return [TextDeltaEvent(content_index=0, delta=piece, partial=out) for piece in pieces]


async def drain(stream: AssistantMessageEventStream) -> list[AssistantMessageEvent]:
    async def run() -> list[AssistantMessageEvent]:
        return [event async for event in stream]

    return await asyncio.wait_for(run(), TIMEOUT)


async def test_push_many_keeps_order_between_single_pushes() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()
    stream.push(StartEvent(partial=out))
    stream.push_many([TextStartEvent(content_index=0, partial=out), *deltas(out, "a", "b")])
    stream.push_many([])
    stream.push_many(deltas(out, "c"))
    stream.push(DoneEvent(reason="stop", message=out))
    events = await drain(stream)
    assert [e.type for e in events] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "done",
    ]
    assert [e.delta for e in events if isinstance(e, TextDeltaEvent)] == ["a", "b", "c"]


async def test_a_terminal_event_inside_a_burst_ends_the_stream() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()
    done = DoneEvent(reason="stop", message=out)
    stream.push_many([*deltas(out, "a"), done, *deltas(out, "dropped")])
    stream.push_many(deltas(out, "after the end"))
    stream.push(ErrorEvent(reason="error", error=out))
    assert stream.finished
    assert [e.type for e in await drain(stream)] == ["text_delta", "done"]
    assert await asyncio.wait_for(stream.result(), TIMEOUT) is out
    assert await drain(stream) == []  # iterating a finished stream again ends at once


async def test_a_waiting_consumer_wakes_for_a_burst_and_reads_all_of_it() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()
    consumer = asyncio.ensure_future(drain(stream))
    await asyncio.sleep(0.01)  # the consumer is parked on an empty stream
    stream.push_many(deltas(out, "a", "b", "c"))
    await asyncio.sleep(0.01)
    stream.push(DoneEvent(reason="stop", message=out))
    events = await consumer
    assert [e.type for e in events] == ["text_delta"] * 3 + ["done"]


async def test_cancelling_one_waiting_consumer_leaves_the_other_waiting() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()

    async def next_event() -> AssistantMessageEvent:
        return await stream.__anext__()

    first = asyncio.ensure_future(next_event())
    second = asyncio.ensure_future(next_event())
    await asyncio.sleep(0.01)
    first.cancel()
    await asyncio.sleep(0.01)
    assert first.cancelled() and not second.done()
    stream.push(StartEvent(partial=out))
    event = await asyncio.wait_for(second, TIMEOUT)
    assert event.type == "start"


async def test_events_pushed_while_the_consumer_is_away_arrive_in_order() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        for batch in range(20):
            stream.push_many(deltas(out, *(f"{batch}.{i}" for i in range(50))))
            await asyncio.sleep(0)

    out = new_output()
    stream = run_stream(out, body)
    seen: list[str] = []
    async for event in stream:
        if isinstance(event, TextDeltaEvent):
            seen.append(event.delta)
            if len(seen) % 70 == 0:
                await asyncio.sleep(0)  # let the producer run ahead
    assert seen == [f"{batch}.{i}" for batch in range(20) for i in range(50)]
    assert (await stream.result()).stop_reason == "stop"


async def test_push_lazy_keeps_order_and_builds_each_event_when_read() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()
    built: list[str] = []

    def run(*pieces: str) -> Iterator[AssistantMessageEvent]:
        for piece in pieces:
            built.append(piece)
            yield TextDeltaEvent(content_index=0, delta=piece, partial=out)

    stream.push(StartEvent(partial=out))
    stream.push_lazy([iter([TextStartEvent(content_index=0, partial=out)]), run("a", "b")])
    stream.push_lazy([])
    stream.push_lazy([run(), run("c")])
    stream.push(DoneEvent(reason="stop", message=out))
    assert built == []
    seen: list[tuple[str, list[str]]] = []
    async for event in stream:
        seen.append((event.type, list(built)))
    assert seen == [
        ("start", []),
        ("text_start", []),
        ("text_delta", ["a"]),
        ("text_delta", ["a", "b"]),
        ("text_delta", ["a", "b", "c"]),
        ("done", ["a", "b", "c"]),
    ]
    assert [event.type async for event in stream] == []  # a finished stream ends at once


async def test_push_lazy_wakes_a_waiting_consumer_and_is_dropped_after_the_end() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()
    consumer = asyncio.ensure_future(drain(stream))
    await asyncio.sleep(0)  # the consumer is waiting
    stream.push_lazy([iter(deltas(out, "a", "b"))])
    await asyncio.sleep(0)
    stream.push(DoneEvent(reason="stop", message=out))
    stream.push_lazy([iter(deltas(out, "dropped"))])
    events = await consumer
    assert [e.type for e in events] == ["text_delta", "text_delta", "done"]
    assert await stream.result() is out


async def test_consumers_taking_turns_share_a_lazy_burst_without_losing_events() -> None:
    out = new_output()
    stream = AssistantMessageEventStream()
    seen: list[str] = []

    async def consume() -> None:
        async for event in stream:
            seen.append(event.delta if isinstance(event, TextDeltaEvent) else event.type)
            await asyncio.sleep(0)  # let the other consumer take the next event

    consumers = [asyncio.ensure_future(consume()) for _ in range(2)]
    await asyncio.sleep(0)  # both are waiting
    stream.push_lazy([iter(deltas(out, "a", "b", "c", "d"))])
    stream.push(DoneEvent(reason="stop", message=out))
    await asyncio.wait_for(asyncio.gather(*consumers), TIMEOUT)
    assert seen == ["a", "b", "c", "d", "done"]
