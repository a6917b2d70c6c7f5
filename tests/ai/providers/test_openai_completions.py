"""The Chat Completions adapter against every recorded OpenAI-compatible stream.

For each fixture: the final AssistantMessage, the PI_SPEC 1.4 event order, and the
request body in protocol structure (pi's own choices checked explicitly). Then what the
real pi CLI sent, and the fault cases (retries, overflow, drops, garbage, cancel).
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from pitui.ai.abort import AbortSignal
from pitui.ai.events import TextDeltaEvent
from pitui.ai.options import StreamOptions
from pitui.ai.providers.openai_completions import stream
from pitui.ai.types import (
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
from tests.ai.providers.harness import (
    PI_CLI_FIXTURES,
    assert_event_order,
    assert_same_protocol,
    collect,
    load_json,
    load_jsonl,
    run_replay,
)
from tests.ai.providers.openai_helpers import (
    ADD,
    BOTH_TOOLS_PROMPT,
    MULTIPLY,
    WEATHER,
    assistant,
    fast_options,
    last_body,
    model,
    protocol_canon,
    usage_tuple,
)
from tests.replay_server import FIXTURES, ReplayServer, Reply

API = "openai-completions"
# Keys in which pi differs from the clients that made the recordings, checked separately.
PI_DIFFERS = ("store", "max_tokens", "max_completion_tokens", "tool_choice")


@dataclass
class Case:
    """One fixture: what pi would have been asked to send, and what it differs in."""

    model: Model
    context: Context
    options: StreamOptions = field(default_factory=fast_options)
    ignore: tuple[str, ...] = PI_DIFFERS


def _tool_result(call_id: str, name: str, text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])


def _tool_result_history() -> list[Message]:
    calls = [
        ToolCall(id="call_cclGbjTQkZDEnnHrRiU0n7NO", name="add", arguments={"a": 2, "b": 3}),
        ToolCall(id="call_Nob2SzTcxIjro1HvSBPQS6XG", name="multiply", arguments={"a": 2, "b": 3}),
    ]
    return [
        UserMessage(content="Add and multiply the number 2 and 3"),
        assistant(API, "openai", "gpt-4o-mini", *calls, stop_reason="toolUse"),
        _tool_result(calls[0].id, "add", "5"),
        _tool_result(calls[1].id, "multiply", "6"),
    ]


def _zai_history() -> list[Message]:
    thinking = (
        "The user is asking about the weather in Florence, Italy. I have a weather function "
        "available that can get weather information for a location. The required parameter "
        'is "location" which should be a city name. The user specified "Florence, Italy" so '
        'I should use "Florence" as the location parameter.'
    )
    call = ToolCall(
        id="call_330c741a86144cb7a385bc6d", name="weather", arguments={"location": "Florence"}
    )
    return [
        UserMessage(content="What's the weather in Florence, Italy?"),
        assistant(
            API,
            "zai",
            "glm-4.7-flash",
            ThinkingContent(thinking=thinking, thinking_signature="reasoning_content"),
            TextContent(text="I'll check the weather in Florence, Italy for you."),
            call,
            stop_reason="toolUse",
        ),
        _tool_result(call.id, "weather", "40 C"),
    ]


def _cases() -> dict[str, Case]:
    gpt4o_mini = model(API, "openai", "gpt-4o-mini")
    return {
        "openai_chat_text": Case(
            gpt4o_mini,
            Context(
                system_prompt="You are a helpful assistant",
                messages=[UserMessage(content="Say hi in Portuguese")],
            ),
            fast_options(max_tokens=4000),
        ),
        "openai_chat_tools": Case(
            gpt4o_mini,
            Context(
                system_prompt=BOTH_TOOLS_PROMPT,
                messages=[UserMessage(content="Add and multiply the number 2 and 3")],
                tools=[ADD, MULTIPLY],
            ),
            fast_options(max_tokens=4000),
        ),
        "openai_chat_tool_result": Case(
            gpt4o_mini,
            Context(
                system_prompt=BOTH_TOOLS_PROMPT,
                messages=_tool_result_history(),
                tools=[ADD, MULTIPLY],
            ),
            fast_options(max_tokens=4000),
        ),
        "openai_chat_length": Case(
            model(API, "openai", "gpt-4o-2024-08-06"),
            Context(messages=[UserMessage(content="What's the weather like in SF?")]),
            fast_options(max_tokens=1),
            (*PI_DIFFERS, "response_format"),
        ),
        "openai_chat_reasoning": Case(
            model(API, "zai", "glm-4.7-flash", reasoning=True),
            Context(
                system_prompt="You are a helpful assistant",
                messages=_zai_history(),
                tools=[WEATHER],
            ),
            fast_options(reasoning="high"),
            # z.ai switches thinking on with enable_thinking; it takes neither store nor
            # reasoning_effort, so "store" stays compared (absent on both sides).
            ("reasoning_effort", "enable_thinking", "tool_choice", "max_completion_tokens"),
        ),
        "openai_chat_reasoning_openrouter": Case(
            model(API, "openrouter", "anthropic/claude-sonnet-4.5", reasoning=True),
            Context(messages=[UserMessage(content="What is 2+2?")]),
            fast_options(reasoning="medium"),
            (*PI_DIFFERS, "reasoning", "cache_control"),
        ),
        "llamacpp_reasoning_tools": Case(
            model(API, "llama.cpp", "openai/gpt-oss-20b", reasoning=True),
            Context(
                system_prompt="You are a helpful assistant",
                messages=[UserMessage(content="What's the weather in Florence, Italy?")],
                tools=[WEATHER],
            ),
            fast_options(reasoning="high"),
        ),
        "ollama_openai_compat": Case(
            model(API, "ollama", "gpt-oss:20b", reasoning=True),
            Context(messages=[UserMessage(content="hi")]),
        ),
        "openrouter_stream_error": Case(
            model(API, "openrouter", "minimax/minimax-m2:free"),
            Context(messages=[UserMessage(content="Hello there")]),
            fast_options(max_tokens=10),
            ("store",),
        ),
    }


CASES = _cases()


async def _run_case(server: ReplayServer, name: str) -> Any:
    case = CASES[name]
    return await run_replay(
        server, stream, case.model, case.context, case.options, Reply.sse_file(f"{name}.sse")
    )


def _expected_body(name: str) -> dict[str, Any]:
    expected: dict[str, Any] = copy.deepcopy(load_json(f"{name}.request.json"))
    for message in expected["messages"]:
        # pi sends an explicit null content on tool-call-only assistant turns.
        if message["role"] == "assistant":
            message.setdefault("content", None)
    return expected


@pytest.mark.parametrize("name", sorted(CASES))
async def test_event_order_and_request_structure(replay_server: ReplayServer, name: str) -> None:
    run = await _run_case(replay_server, name)
    assert_event_order(run)
    sent = last_body(replay_server)
    assert_same_protocol(
        sent, _expected_body(name), ignore=CASES[name].ignore, canon=protocol_canon
    )
    assert replay_server.requests[-1].path == "/v1/chat/completions"
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


async def test_openai_text(replay_server: ReplayServer) -> None:
    run = await _run_case(replay_server, "openai_chat_text")
    message = run.message
    assert [b.to_json_dict() for b in message.content] == [{"type": "text", "text": "Olá!"}]
    assert (message.stop_reason, message.error_message) == ("stop", None)
    assert usage_tuple(message.usage) == (20, 2, 0, 0, 22)
    assert run.types == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    sent = last_body(replay_server)
    # pi's own choices: max_completion_tokens, store:false, the system role (no reasoning).
    assert sent["max_completion_tokens"] == 4000 and "max_tokens" not in sent
    assert sent["store"] is False
    assert sent["messages"][0] == {"role": "system", "content": "You are a helpful assistant"}
    headers = replay_server.requests[-1].headers
    assert headers["authorization"] == "Bearer sk-test-key-123456"


async def test_openai_parallel_tools(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_chat_tools")).message
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls()] == [
        ("call_cclGbjTQkZDEnnHrRiU0n7NO", "add", {"a": 2, "b": 3}),
        ("call_Nob2SzTcxIjro1HvSBPQS6XG", "multiply", {"a": 2, "b": 3}),
    ]
    assert message.stop_reason == "toolUse"
    assert usage_tuple(message.usage) == (106, 50, 0, 0, 156)
    tools = last_body(replay_server)["tools"]
    assert tools[0]["function"]["strict"] is False


async def test_openai_tool_result_turn(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_chat_tool_result")).message
    assert message.text() == "The sum of 2 and 3 is 5, and the product of 2 and 3 is 6."
    sent = last_body(replay_server)["messages"]
    assert sent[2]["content"] is None
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == '{"a":2,"b":3}'
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]


async def test_openai_length(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_chat_length")).message
    assert (message.stop_reason, message.text()) == ("length", '{"')
    assert usage_tuple(message.usage) == (79, 1, 0, 0, 80)


async def test_zai_reasoning_content(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_chat_reasoning")).message
    thinking, text = message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert thinking.thinking_signature == "reasoning_content"
    assert thinking.thinking.startswith('The weather function returned "40 C"')
    assert text.text == "The current weather in Florence, Italy is 40°C (104°F). That's quite hot!"
    # Usage rides on the finish chunk; cached prompt tokens are split out of input.
    assert usage_tuple(message.usage) == (89, 120, 177, 0, 386)
    sent = last_body(replay_server)
    assert sent["enable_thinking"] is True and "reasoning_effort" not in sent
    assert "store" not in sent and sent["messages"][0]["role"] == "system"


async def test_openrouter_reasoning(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_chat_reasoning_openrouter")).message
    thinking, text = message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert (thinking.thinking, thinking.thinking_signature) == (
        "This is a simple arithmetic question. 2+2 equals 4.",
        "reasoning",
    )
    assert text.text == "2 + 2 = 4"
    assert usage_tuple(message.usage) == (43, 49, 0, 0, 92)
    sent = last_body(replay_server)
    assert sent["reasoning"] == {"effort": "medium"}
    assert sent["messages"][-1]["content"] == [
        {"type": "text", "text": "What is 2+2?", "cache_control": {"type": "ephemeral"}}
    ]


async def test_llamacpp_reasoning_then_tool(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "llamacpp_reasoning_tools")).message
    thinking, call = message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(call, ToolCall)
    assert (
        thinking.thinking == "We need to call function 'weather' with location \"Florence, Italy\"."
    )
    assert thinking.thinking_signature == "reasoning_content"
    assert (call.id, call.name, call.arguments) == (
        "1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL",
        "weather",
        {"location": "Florence, Italy"},
    )
    assert (message.stop_reason, usage_tuple(message.usage)) == ("toolUse", (139, 42, 0, 0, 181))
    assert last_body(replay_server)["reasoning_effort"] == "high"


async def test_ollama_old_wire_format(replay_server: ReplayServer) -> None:
    run = await _run_case(replay_server, "ollama_openai_compat")
    thinking, text = run.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    assert thinking.thinking_signature == "reasoning"
    assert text.text == "Hello there! 👋 How can I help you today?"
    assert usage_tuple(run.message.usage) == (68, 41, 0, 0, 109)
    assert run.message.stop_reason == "stop"
    # Reasoning off: no reasoning parameter, and Ollama gets the system role path.
    assert "reasoning_effort" not in last_body(replay_server)


async def test_openrouter_error_inside_200_stream(replay_server: ReplayServer) -> None:
    run = await _run_case(replay_server, "openrouter_stream_error")
    message = run.message
    assert (message.stop_reason, message.error_message) == ("error", "Token limit reached")
    (thinking,) = message.content
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "We need to respond to a greeting. The user"
    assert run.types[-2] == "thinking_delta"  # the open block is not closed on error
    assert len(replay_server.requests) == 1  # content had started: no retry


# --------------------------------------------------------------------------- the pi CLI


def _pi_cli_requests() -> list[dict[str, Any]]:
    bodies: list[dict[str, Any]] = []
    for run in ("requests-run1.jsonl", "requests-run2.jsonl"):
        bodies.extend(entry["body"] for entry in load_jsonl(PI_CLI_FIXTURES / "openai" / run))
    return bodies


def _pi_cli_session_messages() -> list[Message]:
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Message] = TypeAdapter(Message)
    entries = load_jsonl(PI_CLI_FIXTURES / "openai" / "session.jsonl")
    return [adapter.validate_python(e["message"]) for e in entries if e["type"] == "message"]


@pytest.mark.parametrize("index", range(4))
async def test_pi_cli_request_is_reproduced_exactly(
    replay_server: ReplayServer, index: int
) -> None:
    expected = _pi_cli_requests()[index]
    system, *wire_messages = expected["messages"]
    tools = [
        Tool(
            name=t["function"]["name"],
            description=t["function"]["description"],
            parameters=t["function"]["parameters"],
        )
        for t in expected["tools"]
    ]
    context = Context(
        system_prompt=system["content"],
        messages=_pi_cli_session_messages()[: len(wire_messages)],
        tools=tools,
    )
    fake = model(API, "fake-openai", "fake-model", max_tokens=16384)
    await run_replay(
        replay_server, stream, fake, context, fast_options(), Reply.sse_file("openai_chat_text.sse")
    )
    # The session fixture was written with sorted keys, so argument key order can differ.
    assert _parsed_arguments(last_body(replay_server)) == _parsed_arguments(expected)


def _parsed_arguments(body: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(body)
    for message in body["messages"]:
        for call in message.get("tool_calls") or []:
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return body


# --------------------------------------------------------------------------- faults


def _text_case() -> Case:
    return CASES["openai_chat_text"]


async def _run_text(server: ReplayServer, *replies: Reply, **options: Any) -> Any:
    case = _text_case()
    opts = fast_options(**options) if options else case.options
    return await run_replay(server, stream, case.model, case.context, opts, *replies)


def _ok() -> Reply:
    return Reply.sse_file("openai_chat_text.sse")


async def test_429_rate_limit_retries_after_the_servers_delay(replay_server: ReplayServer) -> None:
    limited = Reply.json_error(429, "openai_error_429.json", headers={"retry-after": "0.05"})
    began = time.monotonic()
    run = await _run_text(replay_server, limited, _ok())
    assert time.monotonic() - began >= 0.05
    assert run.message.stop_reason == "stop" and run.message.text() == "Olá!"
    assert len(replay_server.requests) == 2
    assert run.types.count("start") == 1
    assert_event_order(run)


async def test_429_insufficient_quota_is_not_retried(replay_server: ReplayServer) -> None:
    run = await _run_text(
        replay_server, Reply.json_error(429, "openai_error_429_insufficient_quota.json"), _ok()
    )
    assert run.types == ["error"]
    assert run.message.stop_reason == "error"
    assert run.message.error_message == (
        "429 You exceeded your current quota, please check your plan and billing details."
    )
    assert len(replay_server.requests) == 1


async def test_500_three_times_is_an_error(replay_server: ReplayServer) -> None:
    boom = {"error": {"message": "The server had an error", "type": "server_error"}}
    replies = [Reply.json_error(500, boom) for _ in range(3)]
    run = await _run_text(replay_server, *replies, _ok())
    assert run.types == ["error"]
    assert run.message.error_message == "500 The server had an error"
    assert len(replay_server.requests) == 3


async def test_400_context_length_is_overflow_and_not_retried(replay_server: ReplayServer) -> None:
    from pitui.ai.overflow import is_context_overflow

    body = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your "
            "messages resulted in 130000 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    run = await _run_text(replay_server, Reply.json_error(400, body), _ok())
    assert run.message.stop_reason == "error"
    assert is_context_overflow(run.message)
    assert len(replay_server.requests) == 1


async def test_key_never_appears_in_the_error(replay_server: ReplayServer) -> None:
    body = {"error": {"message": "Incorrect API key provided: sk-test-key-123456."}}
    run = await _run_text(replay_server, Reply.json_error(401, body))
    assert run.message.error_message is not None
    assert "sk-test-key-123456" not in run.message.error_message
    assert len(replay_server.requests) == 1


def _cut_after_events(name: str, count: int) -> int:
    """Byte offset just after the first ``count`` SSE events of fixture ``name``."""
    data = (FIXTURES / "providers" / name).read_bytes()
    offset = 0
    for _ in range(count):
        offset = data.index(b"\n\n", offset) + 2
    return offset


async def test_connection_dropped_mid_stream_keeps_partial(replay_server: ReplayServer) -> None:
    name = "openai_chat_tool_result.sse"
    reply = Reply.sse_file(name, drop_after=_cut_after_events(name, 6))
    run = await _run_text(replay_server, reply)
    assert run.message.stop_reason == "error"
    assert run.message.error_message == "Stream ended before the response was complete"
    assert run.message.text() == "The sum of 2"
    assert_event_order(run)
    assert len(replay_server.requests) == 1


async def test_garbage_sse_line_is_an_error(replay_server: ReplayServer) -> None:
    name = "openai_chat_text.sse"
    data = (FIXTURES / "providers" / name).read_bytes()
    cut = _cut_after_events(name, 2)
    reply = Reply(body=data[:cut] + b"data: {this is not json\n\n" + data[cut:])
    run = await _run_text(replay_server, reply)
    assert run.message.stop_reason == "error"
    assert (run.message.error_message or "").startswith("Malformed event data from provider")
    assert run.message.text() == "Olá"
    assert_event_order(run)


async def test_abort_mid_stream_keeps_partial(replay_server: ReplayServer) -> None:
    name = "openai_chat_tool_result.sse"
    signal = AbortSignal()
    replay_server.add(Reply.sse_file(name, hang_after=_cut_after_events(name, 6)))
    case = _text_case()
    local = case.model.model_copy(update={"base_url": replay_server.url + "/v1"})
    events = stream(local, case.context, fast_options(signal=signal))
    seen: list[str] = []
    async for event in events:
        seen.append(event.type)
        if isinstance(event, TextDeltaEvent) and event.partial.text() == "The sum of 2":
            signal.abort()
    message = await events.result()
    assert (message.stop_reason, message.error_message) == ("aborted", "Request was aborted")
    assert message.text() == "The sum of 2"
    assert seen[-1] == "error"


async def test_consumer_cancel_aborts_the_stream(replay_server: ReplayServer) -> None:
    name = "openai_chat_tool_result.sse"
    replay_server.add(Reply.sse_file(name, hang_after=_cut_after_events(name, 6)))
    case = _text_case()
    local = case.model.model_copy(update={"base_url": replay_server.url + "/v1"})
    events = stream(local, case.context, fast_options())
    first_delta = asyncio.Event()

    async def consume() -> None:
        async for event in events:
            if isinstance(event, TextDeltaEvent):
                first_delta.set()

    task = asyncio.ensure_future(consume())
    await asyncio.wait_for(first_delta.wait(), 5)
    task.cancel()
    message = await asyncio.wait_for(events.result(), 5)
    assert message.stop_reason == "aborted"
    assert message.text().startswith("The")


async def test_unreachable_server_is_an_error_without_start() -> None:
    dead = model(API, "openai", "gpt-4o-mini").model_copy(
        update={"base_url": "http://127.0.0.1:9/v1"}
    )
    run = await collect(stream(dead, _text_case().context, fast_options()))
    assert run.types == ["error"]
    assert (run.message.error_message or "").startswith("Connection error")
