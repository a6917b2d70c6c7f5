"""Anthropic request building (PI_SPEC §2.2, §2.5, §2.8) without a server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pitui.ai.options import StreamOptions
from pitui.ai.providers.anthropic_request import build_body, build_headers, plan_thinking
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.harness import key_paths

PNG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")


def _model(model_id: str = "claude-sonnet-4-5", **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": model_id,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "base_url": "https://api.anthropic.com",
        "reasoning": True,
        "input": ["text", "image"],
        "max_tokens": 64_000,
    }
    fields.update(kw)
    return Model(**fields)


def _assistant(*blocks: Any, model: str = "claude-sonnet-4-5", **kw: Any) -> AssistantMessage:
    return AssistantMessage(
        api=kw.pop("api", "anthropic-messages"),
        provider=kw.pop("provider", "anthropic"),
        model=model,
        content=list(blocks),
        **kw,
    )


def _result(call_id: str, *content: TextContent | ImageContent, error: bool = False) -> Message:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name="read", content=list(content), is_error=error
    )


def _body(messages: list[Message], model: Model | None = None, **options: Any) -> dict[str, Any]:
    context = Context(system_prompt="sys", messages=messages)
    return build_body(model or _model(), context, StreamOptions(**options), False)


def test_consecutive_tool_results_become_one_user_message() -> None:
    calls = [ToolCall(id="a", name="read"), ToolCall(id="b", name="read")]
    messages: list[Message] = [
        UserMessage(content="go"),
        _assistant(*calls, stop_reason="toolUse"),
        _result("a", TextContent(text="one"), TextContent(text="two")),
        _result("b", TextContent(text="bad"), error=True),
        UserMessage(content="next"),
    ]
    body = _body(messages)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user", "user"]
    results = body["messages"][2]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "a", "content": "one\ntwo", "is_error": False},
        {"type": "tool_result", "tool_use_id": "b", "content": "bad", "is_error": True},
    ]
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "a", "name": "read", "input": {}},
        {"type": "tool_use", "id": "b", "name": "read", "input": {}},
    ]


def test_tool_result_images_always_sent_with_placeholder() -> None:
    call = ToolCall(id="a", name="read")
    messages: list[Message] = [UserMessage(content="go"), _assistant(call), _result("a", PNG)]
    body = _body(messages, _model(input=["text"]))
    content = body["messages"][2]["content"][0]["content"]
    assert content[0] == {"type": "text", "text": "(see attached image)"}
    assert content[1]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG.data}


def test_user_blocks_images_and_blank_filtering() -> None:
    messages: list[Message] = [
        UserMessage(content="   "),
        UserMessage(content=[TextContent(text=" \n"), PNG]),
        UserMessage(content=[TextContent(text="look"), TextContent(text=""), PNG]),
    ]
    body = _body(messages, cache_retention="none")
    assert len(body["messages"]) == 2
    assert [b["type"] for b in body["messages"][1]["content"]] == ["text", "image"]
    text_only = _body(messages, _model(input=["text"]), cache_retention="none")
    assert text_only["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "look"}]}
    ]


def test_assistant_thinking_replay_variants() -> None:
    message = _assistant(
        ThinkingContent(
            thinking="[Reasoning redacted]", thinking_signature="OPAQUE", redacted=True
        ),
        ThinkingContent(thinking="  ", thinking_signature="sig-blank"),
        ThinkingContent(thinking="unsigned thought"),
        ThinkingContent(thinking="signed thought", thinking_signature="SIG"),
        TextContent(text="  "),
        TextContent(text="answer"),
        ToolCall(id="t1", name="bash", arguments={"command": "ls"}),
    )
    body = _body([UserMessage(content="q"), message, _result("t1", TextContent(text="ok"))])
    assert body["messages"][1]["content"] == [
        {"type": "redacted_thinking", "data": "OPAQUE"},
        {"type": "text", "text": "unsigned thought"},
        {"type": "thinking", "thinking": "signed thought", "signature": "SIG"},
        {"type": "text", "text": "answer"},
        {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
    ]


def test_other_model_history_is_transformed() -> None:
    foreign = _assistant(
        ThinkingContent(thinking="reasoned", thinking_signature='{"id":"rs_1"}'),
        ThinkingContent(thinking="secret", thinking_signature="x", redacted=True),
        ToolCall(id="call_abc|fc_123", name="read", arguments={"path": "a"}),
        model="gpt-5",
        api="openai-responses",
        provider="openai",
    )
    failed = _assistant(TextContent(text="half"), stop_reason="error", error_message="boom")
    messages: list[Message] = [
        UserMessage(content="q"),
        foreign,
        _result("call_abc|fc_123", TextContent(text="ok")),
        failed,
        UserMessage(content="again"),
    ]
    body = _body(messages)
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "reasoned"},
        {"type": "tool_use", "id": "call_abc_fc_123", "name": "read", "input": {"path": "a"}},
    ]
    assert body["messages"][2]["content"][0]["tool_use_id"] == "call_abc_fc_123"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user", "user"]


def test_unanswered_tool_call_gets_synthetic_result() -> None:
    messages: list[Message] = [
        UserMessage(content="q"),
        _assistant(ToolCall(id="t", name="read")),
        UserMessage(content="?"),
    ]
    result = _body(messages)["messages"][2]["content"][0]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": "No result provided",
        "is_error": True,
    }


def test_unpaired_surrogates_are_stripped() -> None:
    messages: list[Message] = [
        UserMessage(content="a\ud83db 😀"),
        _assistant(TextContent(text="x\udc00y")),
    ]
    body = _body(messages, cache_retention="none")
    body["system"] = None
    json.dumps(body, ensure_ascii=False).encode("utf-8")  # encodable: no lone surrogates
    assert body["messages"][0]["content"] == "ab 😀"
    assert body["messages"][1]["content"][0]["text"] == "xy"


# --------------------------------------------------------------------------- cache control


def _tools() -> list[Tool]:
    return [Tool(name="read", description="r"), Tool(name="bash", description="b")]


def test_cache_control_placement_short() -> None:
    context = Context(system_prompt="sys", messages=[UserMessage(content="hi")], tools=_tools())
    body = build_body(_model(), context, StreamOptions(), False)
    assert key_paths(body, "cache_control") == [
        "messages[0].content[0].cache_control",
        "system[0].cache_control",
        "tools[1].cache_control",
    ]
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    ]
    assert all(t["eager_input_streaming"] is True for t in body["tools"])
    assert body["tools"][0]["input_schema"] == {"type": "object", "properties": {}, "required": []}


def test_cache_control_not_on_trailing_assistant() -> None:
    messages: list[Message] = [UserMessage(content="hi"), _assistant(TextContent(text="prefill"))]
    body = _body(messages)
    assert key_paths(body, "cache_control") == ["system[0].cache_control"]


@pytest.mark.parametrize(
    ("base_url", "retention", "expected"),
    [
        ("https://api.anthropic.com", "long", {"type": "ephemeral", "ttl": "1h"}),
        ("https://proxy.example.com", "long", {"type": "ephemeral"}),
        ("https://api.anthropic.com", "short", {"type": "ephemeral"}),
        ("https://api.anthropic.com", "none", None),
    ],
)
def test_cache_retention(base_url: str, retention: Any, expected: dict[str, str] | None) -> None:
    body = _body([UserMessage(content="hi")], _model(base_url=base_url), cache_retention=retention)
    assert body["system"][0].get("cache_control") == expected
    if expected is None:
        assert key_paths(body, "cache_control") == []
        assert body["messages"][0]["content"] == "hi"
    else:
        assert body["messages"][0]["content"][0]["cache_control"] == expected


def test_tool_schema_keeps_only_properties_and_required() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
        "$schema": "x",
    }
    context = Context(tools=[Tool(name="read", description="Read", parameters=schema)])
    model = _model(compat={"supportsEagerToolInputStreaming": False})
    body = build_body(model, context, StreamOptions(cache_retention="none"), False)
    assert body["tools"] == [
        {
            "name": "read",
            "description": "Read",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ]
    headers = build_headers(model, context, "k")
    assert headers["anthropic-beta"].split(",") == [
        "fine-grained-tool-streaming-2025-05-14",
        "interleaved-thinking-2025-05-14",
    ]
    assert "anthropic-beta" not in build_headers(_model("claude-opus-4-6"), Context(), "k")


# --------------------------------------------------------------------------- thinking


@pytest.mark.parametrize(
    ("level", "budget", "max_tokens"),
    [
        ("minimal", 1024, 33024),
        ("low", 2048, 34048),
        ("medium", 8192, 40192),
        ("high", 16384, 48384),
        ("xhigh", 16384, 48384),
    ],
)
def test_thinking_budgets(level: ThinkingLevel, budget: int, max_tokens: int) -> None:
    body = _body([UserMessage(content="q")], reasoning=level, temperature=0.5)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == max_tokens
    assert "temperature" not in body and "output_config" not in body


def test_budget_shrinks_when_max_tokens_is_small() -> None:
    plan = plan_thinking(_model(max_tokens=8000), StreamOptions(reasoning="high"))
    assert plan.max_tokens == 8000
    assert plan.thinking == {"type": "enabled", "budget_tokens": 8000 - 1024}
    custom = plan_thinking(_model(), StreamOptions(reasoning="low", thinking_budgets={"low": 500}))
    assert custom.thinking == {"type": "enabled", "budget_tokens": 500}


def test_no_thinking_sends_temperature_and_default_max_tokens() -> None:
    body = _body([UserMessage(content="q")], temperature=0.2)
    assert body["temperature"] == 0.2 and "thinking" not in body
    assert body["max_tokens"] == 32_000
    small = _body([UserMessage(content="q")], _model(max_tokens=8192))
    assert small["max_tokens"] == 8192
    explicit = _body([UserMessage(content="q")], max_tokens=123)
    assert explicit["max_tokens"] == 123


def test_non_reasoning_model_gets_no_thinking_param() -> None:
    body = _body(
        [UserMessage(content="q")], _model(reasoning=False), reasoning="high", temperature=1
    )
    assert "thinking" not in body and "temperature" not in body


@pytest.mark.parametrize(
    ("model_id", "level", "effort"),
    [
        ("claude-opus-4-6", "minimal", "low"),
        ("claude-opus-4-6", "low", "low"),
        ("claude-opus-4-6", "medium", "medium"),
        ("claude-opus-4-6", "high", "high"),
        ("claude-opus-4-6", "xhigh", "max"),
        ("claude-sonnet-4-6", "xhigh", "high"),
        ("claude-opus-4.6-20260101", "xhigh", "max"),
    ],
)
def test_adaptive_thinking(model_id: str, level: ThinkingLevel, effort: str) -> None:
    body = _body([UserMessage(content="q")], _model(model_id), reasoning=level)
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": effort}
    assert body["max_tokens"] == 32_000


def test_oauth_body() -> None:
    context = Context(
        system_prompt="Be brief.",
        messages=[UserMessage(content="q"), _assistant(ToolCall(id="t", name="bash"))],
        tools=[Tool(name="bash", description="b"), Tool(name="todo", description="t")],
    )
    body = build_body(_model(), context, StreamOptions(), True)
    assert body["system"][0]["text"].startswith("You are Claude Code")
    assert all("cache_control" in block for block in body["system"])
    assert [t["name"] for t in body["tools"]] == ["Bash", "todo"]
    assert body["messages"][1]["content"][0]["name"] == "Bash"
