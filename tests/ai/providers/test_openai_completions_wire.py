"""Chat Completions translation details: request conversion rules and chunk edge cases."""

from __future__ import annotations

from typing import Any

import pytest

from pitui.ai.options import StreamOptions
from pitui.ai.providers.openai_compat import resolve_compat
from pitui.ai.providers.openai_completions import stream
from pitui.ai.providers.openai_completions_request import build_body
from pitui.ai.types import (
    Context,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.harness import assert_event_order, run_replay
from tests.ai.providers.openai_helpers import assistant, fast_options, model, sse_body
from tests.replay_server import ReplayServer, Reply

API = "openai-completions"
IMAGE = ImageContent(data="AAAA", mime_type="image/png")
IMAGE_URL = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def _model(provider: str = "acme", model_id: str = "m", **extra: Any) -> Model:
    extra.setdefault("base_url", "http://server/v1")
    return Model(id=model_id, api=API, provider=provider, **extra)


def _body(
    messages: list[Message],
    options: StreamOptions | None = None,
    target: Model | None = None,
    **context: Any,
) -> dict[str, Any]:
    target = target or _model()
    ctx = Context(messages=messages, **context)
    return build_body(target, ctx, options or StreamOptions(), resolve_compat(target))


def _mine(*content: Any, **extra: Any) -> Any:
    return assistant(API, "acme", "m", *content, **extra)


def test_system_prompt_role_follows_reasoning_and_compat() -> None:
    plain = _body([], system_prompt="sys")
    assert plain["messages"] == [{"role": "system", "content": "sys"}]
    reasoning = _body([], target=_model(reasoning=True), system_prompt="sys")
    assert reasoning["messages"][0]["role"] == "developer"
    local = _body([], target=_model("ollama", reasoning=True), system_prompt="sys")
    assert local["messages"][0]["role"] == "system"


def test_assistant_text_joined_without_separator_and_null_when_absent() -> None:
    call = ToolCall(id="c1", name="f", arguments={"x": "é"})
    messages: list[Message] = [
        UserMessage(content="q"),
        _mine(TextContent(text="a"), TextContent(text="  "), TextContent(text="b")),
        UserMessage(content="q2"),
        _mine(call, stop_reason="toolUse"),
        ToolResultMessage(
            tool_call_id="c1",
            tool_name="f",
            content=[TextContent(text="l1"), TextContent(text="l2")],
        ),
    ]
    sent = _body(messages)["messages"]
    assert sent[1] == {"role": "assistant", "content": "ab"}
    assert sent[3] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x":"é"}'}}
        ],
    }
    assert sent[4] == {"role": "tool", "content": "l1\nl2", "tool_call_id": "c1"}


def test_empty_and_failed_assistant_turns_are_skipped() -> None:
    messages: list[Message] = [
        UserMessage(content="q"),
        _mine(TextContent(text=" ")),
        _mine(TextContent(text="partial"), stop_reason="aborted"),
        UserMessage(content="again"),
    ]
    assert [m["role"] for m in _body(messages)["messages"]] == ["user", "user"]


def test_reasoning_is_echoed_in_the_field_it_arrived_in() -> None:
    messages: list[Message] = [
        UserMessage(content="q"),
        _mine(
            ThinkingContent(thinking="one", thinking_signature="reasoning_content"),
            ThinkingContent(thinking="  ", thinking_signature="reasoning"),
            ThinkingContent(thinking="two", thinking_signature="reasoning"),
            TextContent(text="answer"),
        ),
    ]
    sent = _body(messages)["messages"][1]
    assert sent == {"role": "assistant", "content": "answer", "reasoning_content": "one\ntwo"}


def test_thought_signatures_become_reasoning_details() -> None:
    detail = '{"type":"reasoning.encrypted","id":"c1","data":"enc"}'
    calls = [
        ToolCall(id="c1", name="f", arguments={}, thought_signature=detail),
        ToolCall(id="c2", name="g", arguments={}, thought_signature="not json"),
    ]
    sent = _body([UserMessage(content="q"), _mine(*calls, stop_reason="toolUse")])
    assert sent["messages"][1]["reasoning_details"] == [
        {"type": "reasoning.encrypted", "id": "c1", "data": "enc"}
    ]


def test_user_parts_and_image_filtering() -> None:
    messages: list[Message] = [
        UserMessage(content=[TextContent(text=" "), IMAGE]),
        UserMessage(content=[IMAGE]),
    ]
    text_only = _body(messages)["messages"]
    # Whitespace-only text parts are kept; an image-only message disappears.
    assert text_only == [{"role": "user", "content": [{"type": "text", "text": " "}]}]
    with_images = _body(messages, target=_model(input=["text", "image"]))["messages"]
    assert with_images[1] == {"role": "user", "content": [IMAGE_URL]}


def test_tool_result_images_follow_as_one_user_message() -> None:
    calls = [ToolCall(id=f"c{i}", name="read", arguments={}) for i in (1, 2)]
    messages: list[Message] = [
        UserMessage(content="q"),
        _mine(*calls, stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[IMAGE]),
        ToolResultMessage(
            tool_call_id="c2", tool_name="read", content=[TextContent(text="t"), IMAGE]
        ),
    ]
    sent = _body(messages, target=_model(input=["text", "image"]))["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool", "user"]
    assert sent[2]["content"] == "(see attached image)" and sent[3]["content"] == "t"
    assert sent[4]["content"] == [
        {"type": "text", "text": "Attached image(s) from tool result:"},
        IMAGE_URL,
        IMAGE_URL,
    ]
    dropped = _body(messages)["messages"]
    assert [m["role"] for m in dropped] == ["user", "assistant", "tool", "tool"]


def test_bridge_message_after_tool_results_when_required() -> None:
    call = ToolCall(id="c1", name="f", arguments={})
    messages: list[Message] = [
        UserMessage(content="q"),
        _mine(call, stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="f", content=[TextContent(text="r")]),
        UserMessage(content="next"),
    ]
    target = _model(compat={"requiresAssistantAfterToolResult": True})
    sent = _body(messages, target=target)["messages"]
    assert sent[1]["content"] == ""  # these servers reject null content
    assert sent[3] == {"role": "assistant", "content": "I have processed the tool results."}
    assert sent[4]["role"] == "user"


def test_tools_field() -> None:
    call = ToolCall(id="c1", name="f", arguments={})
    history: list[Message] = [UserMessage(content="q"), _mine(call, stop_reason="toolUse")]
    assert _body(history)["tools"] == []
    assert "tools" not in _body([UserMessage(content="q")])


def test_limits_temperature_effort_and_cache_key() -> None:
    big = _model(max_tokens=100_000, reasoning=True)
    body = _body([], StreamOptions(temperature=0.2, reasoning="xhigh"), target=big)
    assert body["max_completion_tokens"] == 32_000
    assert body["temperature"] == 0.2
    assert body["reasoning_effort"] == "high"  # xhigh only for models that have it
    gpt52 = _model(model_id="gpt-5.2", reasoning=True)
    assert _body([], StreamOptions(reasoning="xhigh"), target=gpt52)["reasoning_effort"] == "xhigh"
    assert "reasoning_effort" not in _body([], target=big)
    session = StreamOptions(session_id="s1")
    assert "prompt_cache_key" not in _body([], session)
    openai = _model("openai", base_url="https://api.openai.com/v1")
    assert _body([], session, target=openai)["prompt_cache_key"] == "s1"
    long = _body([], StreamOptions(session_id="s1", cache_retention="long"))
    assert (long["prompt_cache_key"], long["prompt_cache_retention"]) == ("s1", "24h")


def test_turns_from_other_providers() -> None:
    responses_call = ToolCall(id="call_x+1|fc_" + "y" * 80, name="f", arguments={})
    messages: list[Message] = [
        UserMessage(content="q"),
        assistant(
            "openai-responses",
            "openai",
            "gpt-5",
            ThinkingContent(thinking="I think", thinking_signature='{"id":"rs"}'),
            TextContent(text=" so.", text_signature='{"v":1,"id":"msg_1"}'),
            responses_call,
            stop_reason="toolUse",
        ),
        ToolResultMessage(tool_call_id=responses_call.id, tool_name="f", content=[]),
    ]
    sent = _body(messages)["messages"]
    assert sent[1]["content"] == "I think so."
    assert sent[1]["tool_calls"][0]["id"] == "call_x_1"
    assert sent[2]["tool_call_id"] == "call_x_1"


def test_unpaired_surrogates_are_stripped() -> None:
    sent = _body([UserMessage(content="a\ud83db 👋")], system_prompt="s\udc00")
    assert sent["messages"] == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "ab 👋"},
    ]


def test_deepseek_assistant_turns_carry_reasoning_content() -> None:
    target = _model("deepseek", reasoning=True)
    messages: list[Message] = [
        UserMessage(content="q"),
        assistant(API, "deepseek", "m", TextContent(text="a")),
    ]
    body = _body(messages, StreamOptions(reasoning="low"), target=target)
    assert body["messages"][1]["reasoning_content"] == ""
    assert body["thinking"] == {"type": "enabled"} and body["reasoning_effort"] == "low"


# --------------------------------------------------------------------------- chunks


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> Any:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {"id": "chatcmpl-1", "choices": [choice], **extra}


USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


async def _run_chunks(server: ReplayServer, *chunks: Any, replies: tuple[Reply, ...] = ()) -> Any:
    context = Context(messages=[UserMessage(content="q")])
    reply = Reply(body=sse_body(*chunks))
    return await run_replay(
        server, stream, model(API, "acme", "m"), context, fast_options(), reply, *replies
    )


async def test_content_filter_is_an_unknown_error(replay_server: ReplayServer) -> None:
    run = await _run_chunks(
        replay_server, _chunk({"content": "Hel"}), _chunk(finish="content_filter"), "[DONE]"
    )
    assert (run.message.stop_reason, run.message.error_message) == (
        "error",
        "An unknown error occurred",
    )
    # The stream itself ended normally, so the block was closed before the error.
    assert run.types == ["start", "text_start", "text_delta", "text_end", "error"]


async def test_unknown_finish_reason(replay_server: ReplayServer) -> None:
    run = await _run_chunks(replay_server, _chunk({"content": "x"}), _chunk(finish="weird"))
    assert run.message.error_message == "Unhandled stop reason: weird"


async def test_usage_fallback_on_the_choice(replay_server: ReplayServer) -> None:
    last = _chunk(finish="stop")
    last["choices"][0]["usage"] = USAGE
    run = await _run_chunks(replay_server, _chunk({"content": "x"}), last, "[DONE]")
    assert (run.message.usage.input, run.message.usage.output) == (10, 5)


async def test_whole_tool_call_in_one_chunk_and_no_done_marker(
    replay_server: ReplayServer,
) -> None:
    call = {
        "id": "call_abc12345",
        "index": 0,
        "type": "function",
        "function": {"name": "read", "arguments": '{"path":"a.txt"}'},
    }
    # Ollama style; the connection closes after the finish chunk without [DONE].
    run = await _run_chunks(
        replay_server,
        _chunk({"role": "assistant", "content": "", "tool_calls": [call]}),
        _chunk({"role": "assistant", "content": ""}, "tool_calls"),
        {"id": "chatcmpl-1", "choices": [], "usage": USAGE},
    )
    assert run.message.stop_reason == "toolUse"
    (tool_call,) = run.message.tool_calls()
    assert (tool_call.id, tool_call.name, tool_call.arguments) == (
        "call_abc12345",
        "read",
        {"path": "a.txt"},
    )
    assert run.types == ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]


async def test_tool_calls_split_by_id_and_encrypted_details(replay_server: ReplayServer) -> None:
    def frag(args: str, call_id: str | None = None, name: str | None = None) -> Any:
        call: dict[str, Any] = {"index": 0, "function": {"arguments": args}}
        if call_id:
            call.update(id=call_id, type="function")
            call["function"]["name"] = name
        return _chunk({"tool_calls": [call]})

    detail = {"type": "reasoning.encrypted", "id": "c2", "data": "enc", "format": "x"}
    run = await _run_chunks(
        replay_server,
        _chunk({"reasoning_content": "hm", "reasoning": "hm"}),
        frag("", "c1", "f"),
        frag('{"a":'),
        frag(" 1}"),
        # Same index, new id: pi starts a new block (the index is ignored).
        frag('{"b": tr', "c2", "g"),
        _chunk({"reasoning_details": [detail]}),
        _chunk(finish="tool_calls"),
        "[DONE]",
    )
    thinking, first, second = run.message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "hm"
    assert thinking.thinking_signature == "reasoning_content"
    assert isinstance(first, ToolCall) and isinstance(second, ToolCall)
    assert (first.id, first.arguments) == ("c1", {"a": 1})
    assert (second.id, second.arguments) == ("c2", {"b": True})  # partial JSON at the end
    assert (
        second.thought_signature
        == '{"type":"reasoning.encrypted","id":"c2","data":"enc","format":"x"}'
    )
    assert run.deltas[1] == ["", '{"a":', " 1}"]
    assert_event_order(run)


async def test_done_without_finish_is_stop(replay_server: ReplayServer) -> None:
    run = await _run_chunks(replay_server, _chunk({"content": "x"}), "", "[DONE]")
    assert (run.message.stop_reason, run.message.text()) == ("stop", "x")


async def test_error_chunk_with_raw_metadata(replay_server: ReplayServer) -> None:
    error = {"code": 502, "message": "Provider returned error", "metadata": {"raw": "upstream"}}
    run = await _run_chunks(replay_server, _chunk({"content": "x"}), {"error": error})
    assert run.message.error_message == "Provider returned error\nupstream"
    assert run.message.text() == "x"


async def test_retryable_error_chunk_before_content_is_retried(
    replay_server: ReplayServer,
) -> None:
    error = {"error": {"code": 429, "message": "Rate limited upstream"}}
    ok = Reply(body=sse_body(_chunk({"content": "ok"}), _chunk(finish="stop"), "[DONE]"))
    run = await _run_chunks(replay_server, _chunk({"role": "assistant"}), error, replies=(ok,))
    assert (run.message.stop_reason, run.message.text()) == ("stop", "ok")
    assert len(replay_server.requests) == 2


@pytest.mark.parametrize("body", [b"", b": keep-alive\n\n"])
async def test_empty_stream_is_an_error(replay_server: ReplayServer, body: bytes) -> None:
    context = Context(messages=[UserMessage(content="q")])
    replies = [Reply(body=body) for _ in range(3)]
    run = await run_replay(
        replay_server, stream, model(API, "acme", "m"), context, fast_options(), *replies
    )
    assert run.message.error_message == "Stream ended before the response was complete"
    assert run.types == ["start", "error"]
    assert len(replay_server.requests) == 3  # nothing reached the user: retried


async def test_block_alternation_closes_in_order(replay_server: ReplayServer) -> None:
    run = await _run_chunks(
        replay_server,
        _chunk({"content": "a"}),
        _chunk({"reasoning_text": "r"}),
        _chunk({"content": "b"}),
        _chunk(finish="length"),
        "[DONE]",
    )
    assert [b.type for b in run.message.content] == ["text", "thinking", "text"]
    assert run.message.stop_reason == "length"
    assert_event_order(run)


def test_adapters_are_registered_by_api() -> None:
    from pitui.ai.providers import openai_completions, openai_responses
    from pitui.ai.stream import get_adapter

    assert get_adapter("openai-completions") is openai_completions.stream
    assert get_adapter("openai-responses") is openai_responses.stream


async def test_key_from_the_environment_and_model_headers(
    replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-000000")
    target = model(API, "openai", "gpt-4o-mini", headers={"x-extra": "1"})
    reply = Reply(body=sse_body(_chunk({"content": "x"}), _chunk(finish="stop"), "[DONE]"))
    context = Context(messages=[UserMessage(content="q")])
    options = StreamOptions(headers={"x-extra": "2", "x-option": "3"})
    await run_replay(replay_server, stream, target, context, options, reply)
    headers = {k.lower(): v for k, v in replay_server.requests[-1].headers.items()}
    assert headers["authorization"] == "Bearer sk-from-env-000000"
    assert (headers["x-extra"], headers["x-option"]) == ("2", "3")
