"""AssistantMessageEventStream and run_stream: the never-raise contract (PI_SPEC §1.4, §1.7)."""

from __future__ import annotations

import asyncio

import pytest

from pitui.ai.abort import AbortSignal
from pitui.ai.event_stream import (
    ABORT_MESSAGE,
    AssistantMessageEventStream,
    error_stream,
    run_stream,
)
from pitui.ai.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
)
from pitui.ai.types import AssistantMessage, TextContent

TIMEOUT = 5.0


def new_output() -> AssistantMessage:
    return AssistantMessage(api="demo", provider="demo", model="echo")


async def collect(stream: AssistantMessageEventStream) -> list[AssistantMessageEvent]:
    async def run() -> list[AssistantMessageEvent]:
        return [event async for event in stream]

    return await asyncio.wait_for(run(), TIMEOUT)


def types(events: list[AssistantMessageEvent]) -> list[str]:
    return [event.type for event in events]


def push_text(stream: AssistantMessageEventStream, out: AssistantMessage, *deltas: str) -> None:
    """Push start + one text block streamed as ``deltas`` (left open)."""
    stream.push(StartEvent(partial=out))
    out.content.append(TextContent(text=""))
    stream.push(TextStartEvent(content_index=0, partial=out))
    for delta in deltas:
        block = out.content[0]
        assert isinstance(block, TextContent)
        block.text += delta
        stream.push(TextDeltaEvent(content_index=0, delta=delta, partial=out))


# --------------------------------------------------------------------------- normal flow


async def test_events_arrive_in_order_and_result_is_the_final_message() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "Hel", "lo")
        await asyncio.sleep(0)
        stream.push(TextEndEvent(content_index=0, content="Hello", partial=out))
        stream.push(DoneEvent(reason="stop", message=out))

    out = new_output()
    stream = run_stream(out, body)
    events = await collect(stream)
    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert [e.delta for e in events if isinstance(e, TextDeltaEvent)] == ["Hel", "lo"]
    final = await asyncio.wait_for(stream.result(), TIMEOUT)
    assert final is out
    assert final.text() == "Hello"
    assert stream.finished


async def test_body_without_terminal_event_ends_with_done() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "x")
        out.stop_reason = "length"

    stream = run_stream(new_output(), body)
    events = await collect(stream)
    assert types(events) == ["start", "text_start", "text_delta", "done"]
    assert isinstance(events[-1], DoneEvent)
    assert events[-1].reason == "length"


async def test_body_that_sets_error_reason_ends_with_error_event() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        out.stop_reason = "error"  # e.g. a provider refusal

    stream = run_stream(new_output(), body)
    events = await collect(stream)
    assert types(events) == ["start", "error"]
    final = await stream.result()
    assert final.stop_reason == "error"
    assert final.error_message == "An unknown error occurred"


async def test_exactly_one_terminal_event_and_later_pushes_dropped() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        stream.push(DoneEvent(reason="stop", message=out))
        stream.push(ErrorEvent(reason="error", error=out))
        stream.push(TextStartEvent(content_index=0, partial=out))
        raise RuntimeError("after the end")

    out = new_output()
    stream = run_stream(out, body)
    assert types(await collect(stream)) == ["start", "done"]
    final = await stream.result()
    assert final.stop_reason == "stop"
    assert final.error_message is None


async def test_direct_push_after_terminal_is_dropped() -> None:
    stream = AssistantMessageEventStream()
    out = new_output()
    stream.push(DoneEvent(reason="stop", message=out))
    stream.push(StartEvent(partial=out))
    assert types(await collect(stream)) == ["done"]


async def test_iterating_a_finished_stream_again_ends_at_once() -> None:
    stream = error_stream(new_output(), "boom")
    assert types(await collect(stream)) == ["error"]
    assert await collect(stream) == []


# --------------------------------------------------------------------------- failures


async def test_body_exception_becomes_error_event_keeping_partial_content() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "partial")
        await asyncio.sleep(0)
        raise ConnectionError("connection reset by peer")

    stream = run_stream(new_output(), body)
    events = await collect(stream)  # does not raise
    assert types(events) == ["start", "text_start", "text_delta", "error"]  # block left open
    error = events[-1]
    assert isinstance(error, ErrorEvent)
    assert error.reason == "error"
    assert error.error.stop_reason == "error"
    assert error.error.error_message == "connection reset by peer"
    assert error.error.text() == "partial"
    assert await stream.result() is error.error


async def test_exception_without_text_is_described_by_its_type() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        raise TimeoutError

    final = await asyncio.wait_for(run_stream(new_output(), body).result(), TIMEOUT)
    assert final.stop_reason == "error"
    assert final.error_message == "TimeoutError"


async def test_failure_before_start_gives_a_lone_error_event() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        raise ValueError("No API key for provider: demo")

    events = await collect(run_stream(new_output(), body))
    assert types(events) == ["error"]


async def test_error_stream_fails_at_once() -> None:
    out = new_output()
    stream = error_stream(out, "bad request")
    assert stream.finished
    events = await collect(stream)
    assert types(events) == ["error"]
    assert out.stop_reason == "error"
    assert out.error_message == "bad request"


# --------------------------------------------------------------------------- abort


async def test_abort_mid_stream_keeps_partial_content() -> None:
    signal = AbortSignal()
    streamed = asyncio.Event()
    cancelled = asyncio.Event()

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "half an ans")
        streamed.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    stream = run_stream(new_output(), body, signal)
    await asyncio.wait_for(streamed.wait(), TIMEOUT)
    signal.abort()
    events = await collect(stream)
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    error = events[-1]
    assert isinstance(error, ErrorEvent)
    assert error.reason == "aborted"
    assert error.error.stop_reason == "aborted"
    assert error.error.error_message == ABORT_MESSAGE
    assert error.error.text() == "half an ans"
    assert cancelled.is_set()


async def test_signal_aborted_before_the_stream_starts() -> None:
    signal = AbortSignal()
    signal.abort()

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        await asyncio.sleep(60)

    final = await asyncio.wait_for(run_stream(new_output(), body, signal).result(), TIMEOUT)
    assert final.stop_reason == "aborted"
    assert final.error_message == ABORT_MESSAGE


async def test_body_noticing_abort_and_raising_is_still_aborted() -> None:
    signal = AbortSignal()

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        signal.abort()
        raise RuntimeError("socket closed")

    final = await asyncio.wait_for(run_stream(new_output(), body, signal).result(), TIMEOUT)
    assert final.stop_reason == "aborted"


async def test_consumer_cancellation_aborts_the_request() -> None:
    signal = AbortSignal()
    started = asyncio.Event()
    body_cancelled = asyncio.Event()

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "so far")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            body_cancelled.set()
            raise

    stream = run_stream(new_output(), body, signal)
    seen: list[str] = []

    async def consume() -> None:
        async for event in stream:
            seen.append(event.type)
            if event.type == "text_delta":
                started.set()

    consumer = asyncio.ensure_future(consume())
    await asyncio.wait_for(started.wait(), TIMEOUT)
    await asyncio.sleep(0)  # let the consumer block on the next event
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    final = await asyncio.wait_for(stream.result(), TIMEOUT)
    assert final.stop_reason == "aborted"
    assert final.text() == "so far"
    assert signal.aborted
    await asyncio.wait_for(body_cancelled.wait(), TIMEOUT)
    assert seen == ["start", "text_start", "text_delta"]


# --------------------------------------------------------------------------- result()


async def test_result_resolves_without_any_consumer() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "a", "b")

    final = await asyncio.wait_for(run_stream(new_output(), body).result(), TIMEOUT)
    assert final.text() == "ab"
    assert final.stop_reason == "stop"


async def test_cancelling_one_result_waiter_does_not_break_the_others() -> None:
    release = asyncio.Event()

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        await release.wait()

    stream = run_stream(new_output(), body)
    first = asyncio.ensure_future(stream.result())
    second = asyncio.ensure_future(stream.result())
    await asyncio.sleep(0)
    first.cancel()
    release.set()
    final = await asyncio.wait_for(second, TIMEOUT)
    assert final.stop_reason == "stop"
    assert (await stream.result()) is final


@pytest.mark.parametrize("fails", [False, True])
async def test_result_resolves_for_many_concurrent_streams(fails: bool) -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        await asyncio.sleep(0)
        if fails:
            raise RuntimeError("x")

    streams = [run_stream(new_output(), body) for _ in range(50)]
    finals = await asyncio.wait_for(asyncio.gather(*(s.result() for s in streams)), TIMEOUT)
    assert {f.stop_reason for f in finals} == ({"error"} if fails else {"stop"})


async def test_consumer_cancelled_while_handling_an_event_aborts_too() -> None:
    """Cancellation may land in the consumer's own code, between two ``__anext__`` calls."""
    signal = AbortSignal()
    handling = asyncio.Event()

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        push_text(stream, out, "so far")
        await asyncio.sleep(60)

    stream = run_stream(new_output(), body, signal)

    async def consume() -> None:
        async for event in stream:
            if event.type == "text_delta":
                handling.set()
                await asyncio.sleep(60)  # e.g. a slow subscriber

    consumer = asyncio.ensure_future(consume())
    await asyncio.wait_for(handling.wait(), TIMEOUT)
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    final = await asyncio.wait_for(stream.result(), TIMEOUT)
    assert final.stop_reason == "aborted"
    assert signal.aborted


async def test_a_long_lived_consumer_does_not_accumulate_callbacks() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        await asyncio.sleep(0)

    task = asyncio.current_task()
    assert task is not None
    for _ in range(20):
        await collect_here(run_stream(new_output(), body))
    # Only this test's own done-callback machinery (if any) remains: none per stream.
    assert len(getattr(task, "_callbacks", [])) < 5


async def collect_here(stream: AssistantMessageEventStream) -> list[AssistantMessageEvent]:
    """Iterate in the current task (``collect`` would use a task of its own)."""
    return [event async for event in stream]
