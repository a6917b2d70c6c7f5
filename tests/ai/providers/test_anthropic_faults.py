"""Anthropic adapter failures: retries, overflow, dropped connections, garbage, aborts, keys."""

from __future__ import annotations

import asyncio
import json

import pytest

from pitui.ai.abort import AbortSignal
from pitui.ai.event_stream import ABORT_MESSAGE
from pitui.ai.events import TextDeltaEvent
from pitui.ai.options import StreamOptions
from pitui.ai.overflow import is_context_overflow
from pitui.ai.providers.anthropic import stream
from tests.ai.providers.anthropic_helpers import (
    API_KEY,
    START,
    claude,
    offset_after,
    opts,
    sse,
    text_context,
)
from tests.ai.providers.harness import (
    PROVIDER_FIXTURES,
    assert_event_order,
    collect,
    run_replay,
)
from tests.replay_server import ReplayServer, Reply

# --------------------------------------------------------------------------- faults


async def test_429_then_success_honours_retry_after(replay_server: ReplayServer) -> None:
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        Reply.json_error(429, "anthropic_error_429.json", headers={"retry-after": "0.05"}),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop" and run.message.text().startswith("Olá")
    assert len(replay_server.requests) == 2
    assert run.types.count("start") == 1


async def test_529_overloaded_then_success(replay_server: ReplayServer) -> None:
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        Reply.json_error(529, "anthropic_error_529.json"),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert len(replay_server.requests) == 2


async def test_500_three_times_is_an_error(replay_server: ReplayServer) -> None:
    body = {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        *[Reply.json_error(500, body) for _ in range(3)],
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    assert run.message.error_message == "500 Internal server error"
    assert len(replay_server.requests) == 3
    assert run.types == ["start", "error"]


async def test_context_overflow_is_not_retried(replay_server: ReplayServer) -> None:
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        Reply.json_error(400, "anthropic_error_400_context.json"),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "error"
    assert message.error_message is not None and "prompt is too long" in message.error_message
    assert is_context_overflow(message)
    assert len(replay_server.requests) == 1


async def test_overloaded_event_before_content_is_retried(replay_server: ReplayServer) -> None:
    text = (PROVIDER_FIXTURES / "anthropic_error_overloaded.sse").read_bytes()
    first_block = text.index(b"event: content_block_start")
    error_at = text.index(b"event: error")
    early_error = text[:first_block] + text[error_at:]
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        Reply(body=early_error),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert len(replay_server.requests) == 2


async def test_connection_dropped_mid_stream(replay_server: ReplayServer) -> None:
    cut = offset_after("anthropic_text.sse", b"text_delta", 3)
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        Reply.sse_file("anthropic_text.sse", drop_after=cut),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "error" and message.error_message
    assert message.text() == "Olá! (That's \"hi"
    assert len(replay_server.requests) == 1


async def test_connection_dropped_before_content_is_retried(replay_server: ReplayServer) -> None:
    cut = offset_after("anthropic_text.sse", b"message_start", 1)
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        opts(),
        Reply.sse_file("anthropic_text.sse", drop_after=cut),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert len(replay_server.requests) == 2


async def test_stream_without_message_stop_is_an_error(replay_server: ReplayServer) -> None:
    body = (PROVIDER_FIXTURES / "anthropic_text.sse").read_bytes()
    truncated = body[: body.index(b"event: message_stop")]
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=truncated)
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    assert run.message.error_message is not None and "message_stop" in run.message.error_message


async def test_garbage_sse_data_is_an_error(replay_server: ReplayServer) -> None:
    cut = offset_after("anthropic_text.sse", b"text_delta", 2)
    body = (PROVIDER_FIXTURES / "anthropic_text.sse").read_bytes()[:cut]
    body += b"this line is not sse\n\nevent: content_block_delta\ndata: {not json at all\n\n"
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body)
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    assert run.message.error_message is not None
    assert "Malformed event data" in run.message.error_message
    assert run.message.text() == "Olá! (That"


async def test_abort_signal_mid_stream(replay_server: ReplayServer) -> None:
    cut = offset_after("anthropic_text.sse", b"text_delta", 2)
    replay_server.add(Reply.sse_file("anthropic_text.sse", hang_after=cut))
    signal = AbortSignal()
    model = claude(base_url=replay_server.url)
    events = stream(model, text_context(), opts(signal=signal))
    seen: list[str] = []
    async with asyncio.timeout(5):
        async for event in events:
            seen.append(event.type)
            if seen.count("text_delta") == 2:
                signal.abort()
    message = await events.result()
    assert message.stop_reason == "aborted"
    assert message.error_message == ABORT_MESSAGE
    assert message.text() == "Olá! (That"
    assert seen[-1] == "error"


async def test_cancelling_the_consumer_aborts(replay_server: ReplayServer) -> None:
    cut = offset_after("anthropic_text.sse", b"text_delta", 1)
    replay_server.add(Reply.sse_file("anthropic_text.sse", hang_after=cut))
    events = stream(claude(base_url=replay_server.url), text_context(), opts())
    got_delta = asyncio.Event()

    async def consume() -> None:
        async for event in events:
            if isinstance(event, TextDeltaEvent):
                got_delta.set()

    task = asyncio.ensure_future(consume())
    async with asyncio.timeout(5):
        await got_delta.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        message = await events.result()
    assert message.stop_reason == "aborted"
    assert message.text() == "Olá! ("


async def test_api_key_never_in_error_message(replay_server: ReplayServer) -> None:
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": f"invalid x-api-key: {API_KEY}"},
    }
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply.json_error(401, body)
    )
    assert run.message.stop_reason == "error"
    assert run.message.error_message is not None
    assert "authentication" in run.message.error_message or "invalid" in run.message.error_message
    assert API_KEY not in json.dumps(run.message.to_json_dict())
    assert len(replay_server.requests) == 1


async def test_api_key_not_in_in_stream_error(replay_server: ReplayServer) -> None:
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": API_KEY}}
    body = sse(START) + sse(error)
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body)
    )
    assert run.message.stop_reason == "error"
    assert API_KEY not in (run.message.error_message or "")


async def test_missing_key_is_a_lone_error() -> None:
    model = claude(base_url="http://127.0.0.1:9")
    run = await collect(stream(model, text_context(), StreamOptions()))
    assert run.types == ["error"]
    assert run.message.error_message == "No API key for provider: anthropic"


async def test_key_from_environment(
    replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-key-123456")
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        text_context(),
        StreamOptions(),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert run.message.stop_reason == "stop"
    assert replay_server.requests[0].headers["x-api-key"] == "sk-ant-env-key-123456"


@pytest.mark.parametrize(
    "keep_alive", [b"", b": keep-alive\n\n", b'event: ping\ndata: {"type": "ping"}\n\n']
)
async def test_a_stalled_stream_ends_after_the_idle_timeout(
    replay_server: ReplayServer, keep_alive: bytes
) -> None:
    """A server that stops sending content, even while it keeps the connection alive,
    ends the reply with a retryable "timed out" error (issue 22 item 5)."""
    cut = offset_after("anthropic_text.sse", b"text_delta", 2)
    replay_server.add(
        Reply.sse_file(
            "anthropic_text.sse", hang_after=cut, keep_alive=keep_alive, keep_alive_s=0.05
        )
    )
    options = opts(idle_timeout_s=0.4)
    async with asyncio.timeout(10):
        message = await stream(claude(base_url=replay_server.url), text_context(), options).result()
    assert message.stop_reason == "error"
    assert message.error_message is not None
    assert "Stream timed out: no data from the provider for 0.4 s" in message.error_message
    assert message.text() == "Olá! (That"
