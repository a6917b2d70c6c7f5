"""The anthropic-messages adapter against recorded streams on a real loopback server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pitui.ai.abort import AbortSignal
from pitui.ai.event_stream import ABORT_MESSAGE
from pitui.ai.events import TextDeltaEvent, ToolCallEndEvent
from pitui.ai.options import RetryPolicy, StreamOptions
from pitui.ai.overflow import is_context_overflow
from pitui.ai.providers.anthropic import stream
from pitui.ai.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.harness import (
    PROVIDER_FIXTURES,
    assert_event_order,
    assert_same_protocol,
    collect,
    load_json,
    run_replay,
)
from tests.replay_server import ReplayServer, Reply

API_KEY = "sk-ant-api03-SECRET-test-key-0123456789"
# Keys in which the recording clients differ from pi's own choices (PI_SPEC §2.2, pi CLI).
PI_DIFFERS = {"cache_control", "eager_input_streaming", "tool_choice", "is_error"}


def _model(model_id: str = "claude-sonnet-4-20250514", **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": model_id,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75),
        "context_window": 200_000,
        "max_tokens": 64_000,
    }
    fields.update(kw)
    return Model(**fields)


def _options(**kw: Any) -> StreamOptions:
    kw.setdefault("api_key", API_KEY)
    kw.setdefault("retry", RetryPolicy(base_delay_ms=1))
    return StreamOptions(**kw)


def _user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def _fixture_blocks(name: str) -> dict[int, dict[str, str]]:
    """An independent reading of a fixture: per block index, its type and joined deltas."""
    blocks: dict[int, dict[str, str]] = {}
    for line in (PROVIDER_FIXTURES / name).read_text().splitlines():
        if not line.startswith("data:"):
            continue
        data = json.loads(line[5:])
        if data["type"] == "content_block_start":
            blocks[data["index"]] = {"type": data["content_block"]["type"], "text": ""}
        elif data["type"] == "content_block_delta":
            delta = data["delta"]
            piece = delta.get("text") or delta.get("thinking") or delta.get("partial_json") or ""
            blocks[data["index"]]["text"] += piece
            blocks[data["index"]]["signature"] = blocks[data["index"]].get(
                "signature", ""
            ) + delta.get("signature", "")
    return blocks


def _tools(request_name: str) -> list[Tool]:
    return [
        Tool(name=t["name"], description=t["description"], parameters=t["input_schema"])
        for t in load_json(request_name).get("tools", [])
    ]


# --------------------------------------------------------------------------- fixtures


async def test_text(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt="You are a helpful assistant", messages=[_user("Say hi in Portuguese")]
    )
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        context,
        _options(max_tokens=4000),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "stop" and message.error_message is None
    expected = _fixture_blocks("anthropic_text.sse")[0]["text"]
    assert message.text() == expected and expected.startswith("Olá! (That's")
    assert [b.type for b in message.content] == ["text"]
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (16, 38, 0, 0)
    assert usage.total_tokens == 54
    assert usage.cost.total == pytest.approx((16 * 3 + 38 * 15) / 1e6)
    assert run.types.count("text_delta") == 12
    assert message.api == "anthropic-messages" and message.model == "claude-sonnet-4-20250514"
    # No scratch fields survive a finished block.
    assert message.content[0].to_json_dict() == {"type": "text", "text": expected}
    sent = replay_server.requests[0]
    assert sent.path == "/v1/messages"
    assert_same_protocol(sent.json(), load_json("anthropic_text.request.json"), ignore=PI_DIFFERS)


async def test_thinking_then_tool(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt="You are a helpful assistant",
        messages=[_user("What's the weather in Florence, Italy?")],
        tools=_tools("anthropic_thinking_tool.request.json"),
    )
    options = _options(max_tokens=4096, reasoning="medium", thinking_budgets={"medium": 4000})
    run = await run_replay(
        replay_server,
        stream,
        _model(max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_thinking_tool.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "toolUse"
    thinking, call = message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(call, ToolCall)
    recorded = _fixture_blocks("anthropic_thinking_tool.sse")[0]
    assert thinking.thinking == recorded["text"]
    assert thinking.thinking_signature == recorded["signature"]
    assert thinking.thinking_signature.startswith("EtYDCkYICxgCKkAV")
    assert (call.id, call.name, call.arguments) == (
        "toolu_01Js4AMfx5qpTLhwTusnvT68",
        "weather",
        {"location": "Florence, Italy"},
    )
    assert call.to_json_dict().keys() == {"type", "id", "name", "arguments"}
    # Signature deltas are silent; tool arguments are re-parsed after each fragment.
    assert run.types.count("toolcall_delta") == 7
    end = next(e for e in run.events if isinstance(e, ToolCallEndEvent))
    assert end.tool_call is call
    assert_same_protocol(
        replay_server.requests[0].json(),
        load_json("anthropic_thinking_tool.request.json"),
        ignore=PI_DIFFERS,
    )


async def test_partial_tool_arguments_while_streaming(replay_server: ReplayServer) -> None:
    context = Context(
        messages=[_user("weather?")], tools=_tools("anthropic_thinking_tool.request.json")
    )
    events = stream(_model(base_url=replay_server.url), context, _options())
    # Paced so the consumer sees each fragment before the next one mutates the partial.
    replay_server.add(Reply.sse_file("anthropic_thinking_tool.sse", chunk_size=64, delay_s=0.002))
    seen: list[dict[str, Any]] = []
    async for event in events:
        if event.type == "toolcall_delta":
            block = event.partial.content[event.content_index]
            assert isinstance(block, ToolCall)
            seen.append(dict(block.arguments))
    assert seen[0] == {} and {"location": "Florenc"} in seen
    assert seen[-1] == {"location": "Florence, Italy"}


async def test_thinking_text_tool(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt="You are a helpful assistant",
        messages=[_user("What's the weather in Florence, Italy?")],
        tools=_tools("anthropic_thinking_text_tool.request.json"),
    )
    options = _options(max_tokens=4096, reasoning="medium", thinking_budgets={"medium": 4000})
    run = await run_replay(
        replay_server,
        stream,
        _model(max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_thinking_text_tool.sse"),
    )
    assert_event_order(run)
    assert [b.type for b in run.message.content] == ["thinking", "text", "toolCall"]
    assert run.message.text() == _fixture_blocks("anthropic_thinking_text_tool.sse")[1]["text"]
    assert run.message.tool_calls()[0].arguments == {"location": "Florence, Italy"}
    assert_same_protocol(
        replay_server.requests[0].json(),
        load_json("anthropic_thinking_text_tool.request.json"),
        ignore=PI_DIFFERS,
    )


async def test_thinking_replayed_with_signature(replay_server: ReplayServer) -> None:
    recorded = load_json("anthropic_thinking_tool_result.request.json")
    thinking_wire, tool_wire = recorded["messages"][1]["content"]
    assistant = AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-20250514",
        stop_reason="toolUse",
        content=[
            ThinkingContent(
                thinking=thinking_wire["thinking"], thinking_signature=thinking_wire["signature"]
            ),
            ToolCall(id=tool_wire["id"], name=tool_wire["name"], arguments=tool_wire["input"]),
        ],
    )
    result = ToolResultMessage(
        tool_call_id=tool_wire["id"], tool_name="weather", content=[TextContent(text="40 C")]
    )
    messages: list[Message] = [_user("What's the weather in Florence, Italy?"), assistant, result]
    context = Context(
        system_prompt="You are a helpful assistant",
        messages=messages,
        tools=_tools("anthropic_thinking_tool_result.request.json"),
    )
    options = _options(max_tokens=4096, reasoning="medium", thinking_budgets={"medium": 4000})
    run = await run_replay(
        replay_server,
        stream,
        _model(max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_thinking_tool_result.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert run.message.text() == _fixture_blocks("anthropic_thinking_tool_result.sse")[0]["text"]
    sent = replay_server.requests[0].json()
    assert_same_protocol(sent, recorded, ignore=PI_DIFFERS)
    tool_result = sent["messages"][2]["content"][0]
    assert tool_result["is_error"] is False and tool_result["content"] == "40 C"


async def test_parallel_tools(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt=(
            "You are a helpful assistant. Always use both add and multiply at the same time."
        ),
        messages=[_user("Add and multiply the number 2 and 3")],
        tools=_tools("anthropic_parallel_tools.request.json"),
    )
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        context,
        _options(max_tokens=4000),
        Reply.sse_file("anthropic_parallel_tools.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "toolUse"
    assert [b.type for b in message.content] == ["text", "toolCall", "toolCall"]
    calls = [(c.id, c.name, c.arguments) for c in message.tool_calls()]
    assert calls == [
        ("toolu_01UYxUYC2zRPY8wiutnF48eP", "add", {"a": 2, "b": 3}),
        ("toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", {"a": 2, "b": 3}),
    ]
    assert (message.usage.input, message.usage.output) == (502, 137)
    assert_same_protocol(
        replay_server.requests[0].json(),
        load_json("anthropic_parallel_tools.request.json"),
        ignore=PI_DIFFERS,
    )


async def test_redacted_thinking(replay_server: ReplayServer) -> None:
    trigger = load_json("anthropic_redacted_thinking.request.json")["messages"][0]["content"][0]
    context = Context(messages=[_user(trigger["text"])])
    options = _options(max_tokens=4096, reasoning="minimal")
    run = await run_replay(
        replay_server,
        stream,
        _model("claude-sonnet-4-5-20250929", max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_redacted_thinking.sse"),
    )
    assert_event_order(run)
    first, second, text = run.message.content
    recorded = _fixture_blocks("anthropic_redacted_thinking.sse")
    for block in (first, second):
        assert isinstance(block, ThinkingContent)
        assert block.redacted is True and block.thinking == "[Reasoning redacted]"
    assert isinstance(first, ThinkingContent) and first.thinking_signature
    assert first.thinking_signature.startswith("EqkECkYIBxgCKkA8")
    assert isinstance(text, TextContent) and text.text == recorded[2]["text"]
    assert run.types[:3] == ["start", "thinking_start", "thinking_end"]
    assert_same_protocol(
        replay_server.requests[0].json(),
        load_json("anthropic_redacted_thinking.request.json"),
        ignore=PI_DIFFERS,
    )


async def test_max_tokens_mid_tool_call(replay_server: ReplayServer) -> None:
    request = load_json("anthropic_max_tokens.request.json")
    context = Context(
        messages=[UserMessage(content=request["messages"][0]["content"])],
        tools=_tools("anthropic_max_tokens.request.json"),
    )
    run = await run_replay(
        replay_server,
        stream,
        _model("claude-3-7-sonnet-20250219"),
        context,
        _options(max_tokens=124),
        Reply.sse_file("anthropic_max_tokens.sse"),
    )
    # The truncated tool call has no content_block_stop: it is closed at message_delta.
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "length"
    assert run.terminal().type == "done"
    call = message.tool_calls()[0]
    assert call.name == "make_file"
    assert call.arguments["filename"] == "taxes.txt"
    assert call.arguments["lines_of_text"][-1] == "Filing taxes"
    assert "partialJson" not in call.to_json_dict()
    assert (message.usage.input, message.usage.output) == (450, 124)
    assert_same_protocol(replay_server.requests[0].json(), request, ignore=PI_DIFFERS)


async def test_in_stream_error_after_content(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt="You are a helpful assistant", messages=[_user("Say hi in Portuguese")]
    )
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        context,
        _options(max_tokens=4000),
        Reply.sse_file("anthropic_error_overloaded.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "error"
    assert message.error_message is not None and "Overloaded" in message.error_message
    assert message.text() == "Olá! (That's \"hi"
    assert "text_end" not in run.types  # open blocks are not closed on error
    assert len(replay_server.requests) == 1  # content had started: no retry
    assert message.usage.input == 16
    assert_same_protocol(
        replay_server.requests[0].json(),
        load_json("anthropic_error_overloaded.request.json"),
        ignore=PI_DIFFERS,
    )


# --------------------------------------------------------------------------- pi CLI shape


def _pi_cli_messages() -> list[Message]:
    from pydantic import TypeAdapter

    from tests.ai.providers.harness import PI_CLI_FIXTURES, load_jsonl

    adapter: TypeAdapter[Message] = TypeAdapter(Message)
    entries = load_jsonl(PI_CLI_FIXTURES / "anthropic" / "session.jsonl")
    return [adapter.validate_python(e["message"]) for e in entries if e["type"] == "message"]


@pytest.mark.parametrize(
    ("run_file", "line", "count"), [("run1", 0, 1), ("run1", 1, 3), ("run2", 0, 5), ("run2", 1, 7)]
)
async def test_request_matches_pi_cli_exactly(
    replay_server: ReplayServer, run_file: str, line: int, count: int
) -> None:
    from tests.ai.providers.harness import PI_CLI_FIXTURES, load_jsonl

    pi_body = load_jsonl(PI_CLI_FIXTURES / "anthropic" / f"requests-{run_file}.jsonl")[line]["body"]
    tools = [
        Tool(name=t["name"], description=t["description"], parameters=t["input_schema"])
        for t in pi_body["tools"]
    ]
    context = Context(
        system_prompt=pi_body["system"][0]["text"], messages=_pi_cli_messages()[:count], tools=tools
    )
    model = Model(id="fake-claude", api="anthropic-messages", provider="fake-anthropic")
    run = await run_replay(
        replay_server, stream, model, context, _options(), Reply.sse_file("anthropic_text.sse")
    )
    assert run.message.stop_reason == "stop"
    assert replay_server.requests[0].json() == pi_body


# --------------------------------------------------------------------------- faults


def _text_context() -> Context:
    return Context(
        system_prompt="You are a helpful assistant", messages=[_user("Say hi in Portuguese")]
    )


async def test_429_then_success_honours_retry_after(replay_server: ReplayServer) -> None:
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        _text_context(),
        _options(),
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
        _model(),
        _text_context(),
        _options(),
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
        _model(),
        _text_context(),
        _options(),
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
        _model(),
        _text_context(),
        _options(),
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
        _model(),
        _text_context(),
        _options(),
        Reply(body=early_error),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert len(replay_server.requests) == 2


def _offset_after(name: str, needle: bytes, occurrence: int) -> int:
    body = (PROVIDER_FIXTURES / name).read_bytes()
    at = -1
    for _ in range(occurrence):
        at = body.index(needle, at + 1)
    return body.index(b"\n\n", at) + 2


async def test_connection_dropped_mid_stream(replay_server: ReplayServer) -> None:
    cut = _offset_after("anthropic_text.sse", b"text_delta", 3)
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        _text_context(),
        _options(),
        Reply.sse_file("anthropic_text.sse", drop_after=cut),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "error" and message.error_message
    assert message.text() == "Olá! (That's \"hi"
    assert len(replay_server.requests) == 1


async def test_connection_dropped_before_content_is_retried(replay_server: ReplayServer) -> None:
    cut = _offset_after("anthropic_text.sse", b"message_start", 1)
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        _text_context(),
        _options(),
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
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=truncated)
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    assert run.message.error_message is not None and "message_stop" in run.message.error_message


async def test_garbage_sse_data_is_an_error(replay_server: ReplayServer) -> None:
    cut = _offset_after("anthropic_text.sse", b"text_delta", 2)
    body = (PROVIDER_FIXTURES / "anthropic_text.sse").read_bytes()[:cut]
    body += b"this line is not sse\n\nevent: content_block_delta\ndata: {not json at all\n\n"
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body)
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    assert run.message.error_message is not None
    assert "Malformed event data" in run.message.error_message
    assert run.message.text() == "Olá! (That"


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


_START = {"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}


def _stop_events(reason: str) -> list[dict[str, Any]]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]


def _text_block(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]


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
    body = _sse(_START, *_text_block(0, "Hi"), *_stop_events(reason))
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body)
    )
    assert_event_order(run)
    assert run.message.stop_reason == stop
    assert run.message.error_message == message
    assert run.message.text() == "Hi"


async def test_unknown_events_and_blocks_are_skipped(replay_server: ReplayServer) -> None:
    server_tool = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    body = (
        _sse(_START)
        + b'event: message\ndata: {"type": "something", "x": 1}\n\n'
        + b"event: ping\ndata: {not even json}\n\n"
        + _sse(
            {"type": "content_block_start", "index": 0, "content_block": server_tool},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
            {"type": "content_block_stop", "index": 0},
            *_text_block(1, "Found it."),
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "citations_delta", "citation": {}},
            },
            {"type": "brand_new_event"},
            *_stop_events("end_turn"),
        )
    )
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body)
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

    body = _sse(
        _START,
        tool_start(0, "add"),
        tool_start(1, "multiply"),
        args(1, '{"a": 4'),
        args(0, '{"a": 1'),
        args(0, ', "b": 2}'),
        args(1, ', "b": 5}'),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_stop", "index": 0},
        *_stop_events("tool_use"),
    )
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body)
    )
    assert_event_order(run)
    assert [(c.name, c.arguments) for c in run.message.tool_calls()] == [
        ("add", {"a": 1, "b": 2}),
        ("multiply", {"a": 4, "b": 5}),
    ]
    ends = [e.content_index for e in run.events if isinstance(e, ToolCallEndEvent)]
    assert ends == [1, 0]


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
    body = _sse(start, *_text_block(0, "ok"), delta, {"type": "message_stop"})
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body)
    )
    usage = run.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (10, 7, 100, 20)
    assert usage.total_tokens == 137
    expected = (10 * 3 + 7 * 15 + 100 * 0.3 + 20 * 3.75) / 1e6
    assert usage.cost.total == pytest.approx(expected)


async def test_abort_signal_mid_stream(replay_server: ReplayServer) -> None:
    cut = _offset_after("anthropic_text.sse", b"text_delta", 2)
    replay_server.add(Reply.sse_file("anthropic_text.sse", hang_after=cut))
    signal = AbortSignal()
    model = _model(base_url=replay_server.url)
    events = stream(model, _text_context(), _options(signal=signal))
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
    cut = _offset_after("anthropic_text.sse", b"text_delta", 1)
    replay_server.add(Reply.sse_file("anthropic_text.sse", hang_after=cut))
    events = stream(_model(base_url=replay_server.url), _text_context(), _options())
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
        replay_server, stream, _model(), _text_context(), _options(), Reply.json_error(401, body)
    )
    assert run.message.stop_reason == "error"
    assert run.message.error_message is not None
    assert "authentication" in run.message.error_message or "invalid" in run.message.error_message
    assert API_KEY not in json.dumps(run.message.to_json_dict())
    assert len(replay_server.requests) == 1


async def test_api_key_not_in_in_stream_error(replay_server: ReplayServer) -> None:
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": API_KEY}}
    body = _sse(_START) + _sse(error)
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body)
    )
    assert run.message.stop_reason == "error"
    assert API_KEY not in (run.message.error_message or "")


async def test_missing_key_is_a_lone_error() -> None:
    model = _model(base_url="http://127.0.0.1:9")
    run = await collect(stream(model, _text_context(), StreamOptions()))
    assert run.types == ["error"]
    assert run.message.error_message == "No API key for provider: anthropic"


async def test_key_from_environment(
    replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-key-123456")
    run = await run_replay(
        replay_server,
        stream,
        _model(),
        _text_context(),
        StreamOptions(),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert run.message.stop_reason == "stop"
    assert replay_server.requests[0].headers["x-api-key"] == "sk-ant-env-key-123456"


async def test_headers(replay_server: ReplayServer) -> None:
    model = _model(headers={"x-extra": "model"})
    options = _options(headers={"x-extra": "options", "x-more": "1"})
    await run_replay(
        replay_server, stream, model, _text_context(), options, Reply.sse_file("anthropic_text.sse")
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
    context = Context(system_prompt="Be brief.", messages=[_user("read it")], tools=tools)
    tool_block = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    body = _sse(
        _START,
        {"type": "content_block_start", "index": 0, "content_block": tool_block},
        {"type": "content_block_stop", "index": 0},
        *_stop_events("tool_use"),
    )
    run = await run_replay(
        replay_server,
        stream,
        _model("claude-opus-4-6"),
        context,
        _options(api_key=token),
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


async def test_partial_is_never_behind_the_events(replay_server: ReplayServer) -> None:
    events = stream(_model(base_url=replay_server.url), _text_context(), _options())
    replay_server.add(Reply.sse_file("anthropic_text.sse", chunk_size=200, delay_s=0.001))
    seen = ""
    async for event in events:
        if isinstance(event, TextDeltaEvent):
            seen += event.delta
            block = event.partial.content[event.content_index]
            assert isinstance(block, TextContent) and block.text.startswith(seen)
    assert (await events.result()).text() == seen


async def test_unfinished_tool_call_keeps_raw_arguments_on_error(
    replay_server: ReplayServer,
) -> None:
    body = (PROVIDER_FIXTURES / "anthropic_max_tokens.sse").read_bytes()
    cut = body.index(b"event: message_delta")
    run = await run_replay(
        replay_server, stream, _model(), _text_context(), _options(), Reply(body=body[:cut])
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    call = run.message.tool_calls()[0].to_json_dict()
    # pi keeps the raw fragments of an unfinished call, and drops the routing index.
    assert call["partialJson"].startswith('{"filename": "taxes.txt"')
    assert call["arguments"]["filename"] == "taxes.txt"
    assert "index" not in call
    assert "index" not in run.message.content[0].to_json_dict()
