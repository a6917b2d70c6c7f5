"""Anthropic stream reading on hand-made streams: stop reasons, routing, usage, headers."""

from __future__ import annotations

from typing import Any

import pytest

from pitui.ai.events import ToolCallDeltaEvent, ToolCallEndEvent
from pitui.ai.providers.anthropic import stream
from pitui.ai.types import (
    Context,
    Tool,
)
from tests.ai.providers.anthropic_helpers import (
    API_KEY,
    START,
    claude,
    opts,
    sse,
    stop_events,
    text_block,
    text_context,
    user_text,
)
from tests.ai.providers.harness import (
    assert_event_order,
    run_replay,
)
from tests.replay_server import ReplayServer, Reply


@pytest.mark.parametrize(
    ("reason", "stop", "message"),
    [
        ("refusal", "error", "An unknown error occurred"),
        ("sensitive", "error", "An unknown error occurred"),
        ("pause_turn", "stop", None),
        ("stop_sequence", "stop", None),
        ("something_new", "error", "Unhandled stop reason: something_new"),
    ],
)
async def test_stop_reason_mapping(
    replay_server: ReplayServer, reason: str, stop: str, message: str | None
) -> None:
    body = sse(START, *text_block(0, "Hi"), *stop_events(reason))
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body)
    )
    assert_event_order(run)
    assert run.message.stop_reason == stop
    assert run.message.error_message == message
    assert run.message.text() == "Hi"


async def test_unknown_events_and_blocks_are_skipped(replay_server: ReplayServer) -> None:
    server_tool = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    body = (
        sse(START)
        + b'event: message\ndata: {"type": "something", "x": 1}\n\n'
        + b"event: ping\ndata: {not even json}\n\n"
        + sse(
            {"type": "content_block_start", "index": 0, "content_block": server_tool},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
            {"type": "content_block_stop", "index": 0},
            *text_block(1, "Found it."),
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "citations_delta", "citation": {}},
            },
            {"type": "brand_new_event"},
            *stop_events("end_turn"),
        )
    )
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body)
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert [b.type for b in run.message.content] == ["text"]
    assert run.message.text() == "Found it."


async def test_interleaved_blocks_are_routed_by_server_index(replay_server: ReplayServer) -> None:
    def tool_start(index: int, name: str) -> dict[str, Any]:
        block = {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": {}}
        return {"type": "content_block_start", "index": index, "content_block": block}

    def args(index: int, text: str) -> dict[str, Any]:
        delta = {"type": "input_json_delta", "partial_json": text}
        return {"type": "content_block_delta", "index": index, "delta": delta}

    body = sse(
        START,
        tool_start(0, "add"),
        tool_start(1, "multiply"),
        args(1, '{"a": 4'),
        args(0, '{"a": 1'),
        args(0, ', "b": 2}'),
        args(1, ', "b": 5}'),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_stop", "index": 0},
        *stop_events("tool_use"),
    )
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body)
    )
    assert_event_order(run)
    assert [(c.name, c.arguments) for c in run.message.tool_calls()] == [
        ("add", {"a": 1, "b": 2}),
        ("multiply", {"a": 4, "b": 5}),
    ]
    ends = [e.content_index for e in run.events if isinstance(e, ToolCallEndEvent)]
    assert ends == [1, 0]
    # Deltas of the two blocks stay in wire order (each switch starts a new run).
    deltas = [(e.content_index, e.delta) for e in run.events if isinstance(e, ToolCallDeltaEvent)]
    assert deltas == [(1, '{"a": 4'), (0, '{"a": 1'), (0, ', "b": 2}'), (1, ', "b": 5}')]


async def test_usage_cumulative_from_message_delta(replay_server: ReplayServer) -> None:
    start = {
        "type": "message_start",
        "message": {
            "usage": {
                "input_tokens": 10,
                "output_tokens": 1,
                "cache_read_input_tokens": 100,
                "cache_creation_input_tokens": 20,
            }
        },
    }
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"output_tokens": 7, "cache_read_input_tokens": None},
    }
    body = sse(start, *text_block(0, "ok"), delta, {"type": "message_stop"})
    run = await run_replay(
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body)
    )
    usage = run.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (10, 7, 100, 20)
    assert usage.total_tokens == 137
    expected = (10 * 3 + 7 * 15 + 100 * 0.3 + 20 * 3.75) / 1e6
    assert usage.cost.total == pytest.approx(expected)


async def test_headers(replay_server: ReplayServer) -> None:
    model = claude(headers={"x-extra": "model"})
    options = opts(headers={"x-extra": "options", "x-more": "1"})
    await run_replay(
        replay_server, stream, model, text_context(), options, Reply.sse_file("anthropic_text.sse")
    )
    headers = {k.lower(): v for k, v in replay_server.requests[0].headers.items()}
    assert headers["x-api-key"] == API_KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert headers["content-type"] == "application/json"
    assert headers["x-extra"] == "options" and headers["x-more"] == "1"
    assert "authorization" not in headers


async def test_oauth_token(replay_server: ReplayServer) -> None:
    token = "sk-ant-oat01-SECRET-oauth-token-0123456789"
    tools = [Tool(name="read", description="Read a file"), Tool(name="find", description="Find")]
    context = Context(system_prompt="Be brief.", messages=[user_text("read it")], tools=tools)
    tool_block = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    body = sse(
        START,
        {"type": "content_block_start", "index": 0, "content_block": tool_block},
        {"type": "content_block_stop", "index": 0},
        *stop_events("tool_use"),
    )
    run = await run_replay(
        replay_server,
        stream,
        claude("claude-opus-4-6"),
        context,
        opts(api_key=token),
        Reply(body=body),
    )
    sent = replay_server.requests[0]
    headers = {k.lower(): v for k, v in sent.headers.items()}
    assert headers["authorization"] == f"Bearer {token}"
    assert "x-api-key" not in headers
    assert headers["anthropic-beta"].startswith("claude-code-20250219,oauth-2025-04-20")
    assert headers["x-app"] == "cli" and headers["user-agent"].startswith("claude-cli/")
    payload = sent.json()
    assert [b["text"] for b in payload["system"]] == [
        "You are Claude Code, Anthropic's official CLI for Claude.",
        "Be brief.",
    ]
    assert [t["name"] for t in payload["tools"]] == ["Read", "find"]
    assert run.message.tool_calls()[0].name == "read"
