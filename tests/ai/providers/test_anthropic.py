"""The anthropic-messages adapter on every recorded Anthropic stream, and pi's own request."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from pitui.ai.events import TextDeltaEvent, ToolCallEndEvent
from pitui.ai.providers.anthropic import stream
from pitui.ai.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.anthropic_helpers import (
    PI_DIFFERS,
    claude,
    fixture_blocks,
    fixture_tools,
    opts,
    text_context,
    user_text,
)
from tests.ai.providers.harness import (
    PI_CLI_FIXTURES,
    PROVIDER_FIXTURES,
    assert_event_order,
    assert_same_protocol,
    load_json,
    load_jsonl,
    run_replay,
)
from tests.replay_server import ReplayServer, Reply

# --------------------------------------------------------------------------- fixtures


async def test_text(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt="You are a helpful assistant", messages=[user_text("Say hi in Portuguese")]
    )
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        context,
        opts(max_tokens=4000),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "stop" and message.error_message is None
    expected = fixture_blocks("anthropic_text.sse")[0]["text"]
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
        messages=[user_text("What's the weather in Florence, Italy?")],
        tools=fixture_tools("anthropic_thinking_tool.request.json"),
    )
    options = opts(max_tokens=4096, reasoning="medium", thinking_budgets={"medium": 4000})
    run = await run_replay(
        replay_server,
        stream,
        claude(max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_thinking_tool.sse"),
    )
    assert_event_order(run)
    message = run.message
    assert message.stop_reason == "toolUse"
    thinking, call = message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(call, ToolCall)
    recorded = fixture_blocks("anthropic_thinking_tool.sse")[0]
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
        messages=[user_text("weather?")],
        tools=fixture_tools("anthropic_thinking_tool.request.json"),
    )
    events = stream(claude(base_url=replay_server.url), context, opts())
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
        messages=[user_text("What's the weather in Florence, Italy?")],
        tools=fixture_tools("anthropic_thinking_text_tool.request.json"),
    )
    options = opts(max_tokens=4096, reasoning="medium", thinking_budgets={"medium": 4000})
    run = await run_replay(
        replay_server,
        stream,
        claude(max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_thinking_text_tool.sse"),
    )
    assert_event_order(run)
    assert [b.type for b in run.message.content] == ["thinking", "text", "toolCall"]
    assert run.message.text() == fixture_blocks("anthropic_thinking_text_tool.sse")[1]["text"]
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
    messages: list[Message] = [
        user_text("What's the weather in Florence, Italy?"),
        assistant,
        result,
    ]
    context = Context(
        system_prompt="You are a helpful assistant",
        messages=messages,
        tools=fixture_tools("anthropic_thinking_tool_result.request.json"),
    )
    options = opts(max_tokens=4096, reasoning="medium", thinking_budgets={"medium": 4000})
    run = await run_replay(
        replay_server,
        stream,
        claude(max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_thinking_tool_result.sse"),
    )
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    assert run.message.text() == fixture_blocks("anthropic_thinking_tool_result.sse")[0]["text"]
    sent = replay_server.requests[0].json()
    assert_same_protocol(sent, recorded, ignore=PI_DIFFERS)
    tool_result = sent["messages"][2]["content"][0]
    assert tool_result["is_error"] is False and tool_result["content"] == "40 C"


async def test_parallel_tools(replay_server: ReplayServer) -> None:
    context = Context(
        system_prompt=(
            "You are a helpful assistant. Always use both add and multiply at the same time."
        ),
        messages=[user_text("Add and multiply the number 2 and 3")],
        tools=fixture_tools("anthropic_parallel_tools.request.json"),
    )
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        context,
        opts(max_tokens=4000),
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
    context = Context(messages=[user_text(trigger["text"])])
    options = opts(max_tokens=4096, reasoning="minimal")
    run = await run_replay(
        replay_server,
        stream,
        claude("claude-sonnet-4-5-20250929", max_tokens=4096),
        context,
        options,
        Reply.sse_file("anthropic_redacted_thinking.sse"),
    )
    assert_event_order(run)
    first, second, text = run.message.content
    recorded = fixture_blocks("anthropic_redacted_thinking.sse")
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
        tools=fixture_tools("anthropic_max_tokens.request.json"),
    )
    run = await run_replay(
        replay_server,
        stream,
        claude("claude-3-7-sonnet-20250219"),
        context,
        opts(max_tokens=124),
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
        system_prompt="You are a helpful assistant", messages=[user_text("Say hi in Portuguese")]
    )
    run = await run_replay(
        replay_server,
        stream,
        claude(),
        context,
        opts(max_tokens=4000),
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
    adapter: TypeAdapter[Message] = TypeAdapter(Message)
    entries = load_jsonl(PI_CLI_FIXTURES / "anthropic" / "session.jsonl")
    return [adapter.validate_python(e["message"]) for e in entries if e["type"] == "message"]


@pytest.mark.parametrize(
    ("run_file", "line", "count"), [("run1", 0, 1), ("run1", 1, 3), ("run2", 0, 5), ("run2", 1, 7)]
)
async def test_request_matches_pi_cli_exactly(
    replay_server: ReplayServer, run_file: str, line: int, count: int
) -> None:
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
        replay_server, stream, model, context, opts(), Reply.sse_file("anthropic_text.sse")
    )
    assert run.message.stop_reason == "stop"
    assert replay_server.requests[0].json() == pi_body


async def test_partial_is_never_behind_the_events(replay_server: ReplayServer) -> None:
    events = stream(claude(base_url=replay_server.url), text_context(), opts())
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
        replay_server, stream, claude(), text_context(), opts(), Reply(body=body[:cut])
    )
    assert_event_order(run)
    assert run.message.stop_reason == "error"
    call = run.message.tool_calls()[0].to_json_dict()
    # pi keeps the raw fragments of an unfinished call, and drops the routing index.
    assert call["partialJson"].startswith('{"filename": "taxes.txt"')
    assert call["arguments"]["filename"] == "taxes.txt"
    assert "index" not in call
    assert "index" not in run.message.content[0].to_json_dict()
