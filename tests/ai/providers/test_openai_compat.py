"""Compat auto-detection and overrides of the Chat Completions adapter (pi's ``compat``)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from pitui.ai.options import StreamOptions
from pitui.ai.providers.openai_compat import (
    OpenAICompletionsCompat,
    detect_compat,
    resolve_compat,
)
from pitui.ai.providers.openai_completions_request import build_body
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def _model(
    provider: str = "openai",
    base_url: str = "https://api.openai.com/v1",
    model_id: str = "m",
    **extra: Any,
) -> Model:
    return Model(
        id=model_id, api="openai-completions", provider=provider, base_url=base_url, **extra
    )


def test_openai_defaults() -> None:
    compat = detect_compat(_model())
    assert compat == OpenAICompletionsCompat()
    assert compat.max_tokens_field == "max_completion_tokens"
    assert compat.thinking_format == "openai"


@pytest.mark.parametrize(
    ("provider", "base_url"),
    [
        ("cerebras", "https://x"),
        ("custom", "https://api.cerebras.ai/v1"),
        ("xai", "https://x"),
        ("custom", "https://api.x.ai/v1"),
        ("custom", "https://llm.chutes.ai/v1"),
        ("custom", "https://api.deepseek.com"),
        ("zai", "https://x"),
        ("custom", "https://api.z.ai/api/coding/paas/v4"),
        ("opencode", "https://x"),
        ("moonshotai", "https://x"),
    ],
)
def test_non_standard_servers_get_no_store_and_no_developer_role(
    provider: str, base_url: str
) -> None:
    compat = detect_compat(_model(provider, base_url))
    assert compat.supports_store is False
    assert compat.supports_developer_role is False


def test_specific_switches() -> None:
    assert detect_compat(_model("xai", "https://api.x.ai/v1")).supports_reasoning_effort is False
    zai = detect_compat(_model("zai", "https://api.z.ai/v4"))
    assert (zai.thinking_format, zai.supports_reasoning_effort) == ("zai", False)
    deepseek = detect_compat(_model("deepseek", "https://api.deepseek.com"))
    assert deepseek.thinking_format == "deepseek"
    assert deepseek.requires_reasoning_content_on_assistant_messages is True
    assert detect_compat(_model("custom", "https://llm.chutes.ai/v1")).max_tokens_field == (
        "max_tokens"
    )
    groq = detect_compat(_model("groq", "https://api.groq.com/openai/v1", "qwen/qwen3-32b"))
    assert groq.reasoning_effort_map["high"] == "default"
    assert groq.supports_store is True
    router = detect_compat(_model("openrouter", "https://openrouter.ai/api/v1", "anthropic/x"))
    assert (router.thinking_format, router.cache_control_format) == ("openrouter", "anthropic")
    assert (
        detect_compat(
            _model("openrouter", "https://openrouter.ai/api/v1", "openai/x")
        ).cache_control_format
        is None
    )


@pytest.mark.parametrize(
    ("provider", "base_url"),
    [
        ("ollama", "http://localhost:11434/v1"),
        ("local", "http://127.0.0.1:11434/v1"),
        ("lmstudio", "http://localhost:1234/v1"),
        ("vllm", "http://gpu-box:8000/v1"),
        ("llama.cpp", "http://localhost:8080/v1"),
    ],
)
def test_local_servers_use_the_system_role(provider: str, base_url: str) -> None:
    compat = detect_compat(_model(provider, base_url))
    assert compat.supports_developer_role is False
    # Everything else stays standard: they accept store, usage and reasoning_effort.
    assert compat.supports_store and compat.supports_usage_in_streaming
    assert compat.supports_reasoning_effort


def test_model_compat_overrides_single_switches_with_pi_names() -> None:
    model = _model(
        "deepseek",
        "https://api.deepseek.com",
        compat={"supportsStore": True, "maxTokensField": "max_tokens", "unknownFlag": 1},
    )
    compat = resolve_compat(model)
    assert compat.supports_store is True
    assert compat.max_tokens_field == "max_tokens"
    assert compat.supports_developer_role is False  # still detected
    assert compat.thinking_format == "deepseek"


def test_invalid_compat_value_is_a_validation_error() -> None:
    with pytest.raises(pydantic.ValidationError):
        resolve_compat(_model(compat={"maxTokensField": "tokens"}))


def test_compat_dumps_pi_field_names() -> None:
    names = set(OpenAICompletionsCompat().to_json_dict())
    assert {
        "supportsStore",
        "supportsDeveloperRole",
        "supportsReasoningEffort",
        "maxTokensField",
        "requiresToolResultName",
        "requiresAssistantAfterToolResult",
        "requiresThinkingAsText",
        "thinkingFormat",
        "supportsStrictMode",
        "supportsUsageInStreaming",
    } <= names


# --------------------------------------------------------------------------- body effects


def _history() -> list[Any]:
    call = ToolCall(id="call_1", name="read", arguments={"path": "a.png"})
    return [
        UserMessage(content="look"),
        AssistantMessage(
            api="openai-completions",
            provider="p",
            model="m",
            content=[ThinkingContent(thinking="hmm", thinking_signature="reasoning"), call],
            stop_reason="toolUse",
        ),
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="read",
            content=[ImageContent(data="AAAA", mime_type="image/png")],
        ),
        UserMessage(content="and?"),
    ]


def _body(compat: dict[str, Any], **model_extra: Any) -> dict[str, Any]:
    model = _model("p", "http://server/v1", compat=compat, input=["text", "image"], **model_extra)
    context = Context(system_prompt="sys", messages=_history())
    return build_body(model, context, StreamOptions(max_tokens=100), resolve_compat(model))


def test_switches_shape_the_body() -> None:
    body = _body(
        {
            "supportsStore": False,
            "supportsUsageInStreaming": False,
            "maxTokensField": "max_tokens",
            "requiresToolResultName": True,
            "requiresAssistantAfterToolResult": True,
            "requiresThinkingAsText": True,
            "supportsStrictMode": False,
        }
    )
    assert "store" not in body and "stream_options" not in body
    assert body["max_tokens"] == 100 and "max_completion_tokens" not in body
    assert body["tools"] == []  # tool history, no tools given
    roles = [m["role"] for m in body["messages"]]
    # The image follow-up is a user message, so "and?" needs no second bridge.
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "user"]
    assistant = body["messages"][2]
    assert assistant["content"] == [{"type": "text", "text": "hmm"}]
    assert "reasoning" not in assistant
    assert body["messages"][3]["name"] == "read"
    assert body["messages"][3]["content"] == "(see attached image)"
    assert body["messages"][4] == {
        "role": "assistant",
        "content": "I have processed the tool results.",
    }
    assert body["messages"][5]["content"][0] == {
        "type": "text",
        "text": "Attached image(s) from tool result:",
    }
    assert body["messages"][5]["content"][1]["image_url"]["url"] == "data:image/png;base64,AAAA"


def test_tools_without_strict_when_unsupported() -> None:
    model = _model("p", "http://server/v1", compat={"supportsStrictMode": False})
    tool = Tool(name="t", description="d")
    body = build_body(model, Context(tools=[tool]), StreamOptions(), resolve_compat(model))
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "t", "description": "d", "parameters": tool.parameters},
        }
    ]


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("zai", {"enable_thinking": True}),
        ("qwen", {"enable_thinking": True}),
        ("qwen-chat-template", {"chat_template_kwargs": {"enable_thinking": True}}),
        ("deepseek", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
        ("openrouter", {"reasoning": {"effort": "high"}}),
        ("openai", {"reasoning_effort": "high"}),
    ],
)
def test_thinking_formats(fmt: str, expected: dict[str, Any]) -> None:
    model = _model("p", "http://server/v1", compat={"thinkingFormat": fmt}, reasoning=True)
    body = build_body(model, Context(), StreamOptions(reasoning="xhigh"), resolve_compat(model))
    keys = {"enable_thinking", "chat_template_kwargs", "thinking", "reasoning", "reasoning_effort"}
    assert {k: v for k, v in body.items() if k in keys} == expected


def test_thinking_off_and_effort_map() -> None:
    model = _model("p", "http://server/v1", compat={"thinkingFormat": "zai"}, reasoning=True)
    body = build_body(model, Context(), StreamOptions(), resolve_compat(model))
    assert body["enable_thinking"] is False
    mapped = _model(
        "p",
        "http://s/v1",
        "gpt-5.2",
        compat={"reasoningEffortMap": {"xhigh": "max"}},
        reasoning=True,
    )
    body = build_body(mapped, Context(), StreamOptions(reasoning="xhigh"), resolve_compat(mapped))
    assert body["reasoning_effort"] == "max"
    plain = _model("p", "http://s/v1", compat={"supportsReasoningEffort": False}, reasoning=True)
    body = build_body(plain, Context(), StreamOptions(reasoning="low"), resolve_compat(plain))
    assert "reasoning_effort" not in body


def test_openrouter_routing_and_anthropic_cache_control() -> None:
    model = _model(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "anthropic/claude-sonnet-4.5",
        compat={"openRouterRouting": {"only": ["anthropic"]}},
    )
    messages: list[Any] = [
        UserMessage(content="first"),
        AssistantMessage(
            api="openai-completions",
            provider="openrouter",
            model="anthropic/claude-sonnet-4.5",
            content=[TextContent(text="answer")],
        ),
        UserMessage(content=[TextContent(text="a"), TextContent(text="b")]),
    ]
    body = build_body(model, Context(messages=messages), StreamOptions(), resolve_compat(model))
    assert body["provider"] == {"only": ["anthropic"]}
    last = body["messages"][-1]["content"]
    assert last[1] == {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}}
    assert "cache_control" not in last[0]
    assert body["messages"][1]["content"] == "answer"
    none = build_body(
        model,
        Context(messages=messages),
        StreamOptions(cache_retention="none"),
        resolve_compat(model),
    )
    assert "cache_control" not in str(none)
