"""Per-server compatibility switches of the OpenAI Chat Completions adapter (pi's ``compat``).

Many servers speak "OpenAI Chat Completions" with small differences: some reject the
``developer`` role or the ``store`` field, want ``max_tokens`` instead of
``max_completion_tokens``, or switch reasoning on with their own parameter. pi detects
the known ones from the provider name and base URL and lets ``model.compat`` (from
``models.json``) override any single switch. The field names here are pi's, so a
pi ``models.json`` ``compat`` object is read unchanged.

Detection follows pi (cerebras, xAI, chutes, DeepSeek, z.ai, Moonshot, OpenCode,
Groq, OpenRouter, Cloudflare). One addition: local servers (Ollama, LM Studio, vLLM,
llama.cpp) get ``supportsDeveloperRole: false``, the setting pi's own docs tell users
to add for them, because their chat templates know only the ``system`` role.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import Field

from pitui.ai._base import ON_FIRST_USE, PiModel
from pitui.ai.types import Model

MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]
ThinkingFormat: TypeAlias = Literal[
    "openai", "zai", "qwen", "qwen-chat-template", "openrouter", "deepseek"
]


class OpenAICompletionsCompat(PiModel):
    """Resolved compatibility settings; defaults describe api.openai.com.

    :func:`detect_compat` builds it unvalidated (its values are pitui's own): the
    validator waits for a ``compat`` object from models.json, the only data read into it.
    """

    model_config = ON_FIRST_USE

    supports_store: bool = True
    """Whether ``store: false`` may be sent."""
    supports_developer_role: bool = True
    """Whether reasoning models get the system prompt in a ``developer`` message."""
    supports_reasoning_effort: bool = True
    """Whether ``reasoning_effort`` is accepted (thinkingFormat ``openai``)."""
    reasoning_effort_map: dict[str, str] = Field(default_factory=dict)
    """Maps pi thinking levels to the server's ``reasoning_effort`` values."""
    supports_usage_in_streaming: bool = True
    """Whether ``stream_options: {include_usage: true}`` is accepted."""
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    """Which field carries the output token limit."""
    requires_tool_result_name: bool = False
    """Whether ``role: tool`` messages need the tool's ``name``."""
    requires_assistant_after_tool_result: bool = False
    """Whether a user message may not directly follow tool results."""
    requires_thinking_as_text: bool = False
    """Whether replayed thinking must be sent as a leading text part."""
    requires_reasoning_content_on_assistant_messages: bool = False
    """Whether every replayed assistant message needs a ``reasoning_content`` field."""
    thinking_format: ThinkingFormat = "openai"
    """How reasoning is switched on: ``reasoning_effort`` or a server-specific flag."""
    open_router_routing: dict[str, Any] = Field(default_factory=dict)
    """OpenRouter ``provider`` routing preferences (only sent to openrouter.ai)."""
    vercel_gateway_routing: dict[str, Any] = Field(default_factory=dict)
    """Vercel AI Gateway routing preferences (only sent to ai-gateway.vercel.sh)."""
    supports_strict_mode: bool = True
    """Whether tool definitions may carry ``strict: false``."""
    cache_control_format: Literal["anthropic"] | None = None
    """``anthropic``: put ``cache_control`` on the last text part (OpenRouter Claude)."""
    supports_long_cache_retention: bool = True
    """Whether ``prompt_cache_retention: 24h`` may be sent for long retention."""


_NON_STANDARD_URLS = ("cerebras.ai", "api.x.ai", "chutes.ai", "deepseek.com", "opencode.ai")
_NON_STANDARD_PROVIDERS = frozenset({"cerebras", "xai", "opencode"})
_LOCAL_PROVIDERS = frozenset(
    {"ollama", "lmstudio", "lm-studio", "vllm", "llama.cpp", "llamacpp", "llama-cpp"}
)
_LOCAL_PORTS = (":11434", ":1234")


def _has(base_url: str, *parts: str) -> bool:
    return any(part in base_url for part in parts)


def _max_tokens_field(base_url: str, legacy: bool) -> MaxTokensField:
    return "max_tokens" if legacy or "chutes.ai" in base_url else "max_completion_tokens"


def detect_compat(model: Model) -> OpenAICompletionsCompat:
    """Compatibility settings auto-detected from ``model.provider`` and ``model.base_url``."""
    provider, url = model.provider, model.base_url
    is_zai = provider == "zai" or "api.z.ai" in url
    is_moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    is_cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in url
    is_cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    is_grok = provider == "xai" or "api.x.ai" in url
    is_groq = provider == "groq" or "groq.com" in url
    is_deepseek = provider == "deepseek" or "deepseek.com" in url
    is_openrouter = provider == "openrouter" or "openrouter.ai" in url
    is_local = provider in _LOCAL_PROVIDERS or _has(url, *_LOCAL_PORTS)
    non_standard = (
        provider in _NON_STANDARD_PROVIDERS
        or _has(url, *_NON_STANDARD_URLS)
        or is_zai
        or is_moonshot
        or is_cf_workers
        or is_cf_gateway
    )
    thinking: ThinkingFormat = "openai"
    if is_deepseek:
        thinking = "deepseek"
    elif is_zai:
        thinking = "zai"
    elif is_openrouter:
        thinking = "openrouter"
    effort_map: dict[str, str] = {}
    if is_groq and model.id == "qwen/qwen3-32b":
        # Groq's qwen3 accepts only "default" (or "none").
        effort_map = dict.fromkeys(("minimal", "low", "medium", "high", "xhigh"), "default")
    return OpenAICompletionsCompat.model_construct(
        supports_store=not non_standard,
        supports_developer_role=not non_standard and not is_local,
        supports_reasoning_effort=not (is_grok or is_zai or is_moonshot or is_cf_gateway),
        reasoning_effort_map=effort_map,
        max_tokens_field=_max_tokens_field(url, is_moonshot or is_cf_gateway),
        requires_reasoning_content_on_assistant_messages=is_deepseek,
        thinking_format=thinking,
        supports_strict_mode=not (is_moonshot or is_cf_gateway),
        cache_control_format=(
            "anthropic" if provider == "openrouter" and model.id.startswith("anthropic/") else None
        ),
        supports_long_cache_retention=not (is_cf_workers or is_cf_gateway),
    )


def resolve_compat(model: Model) -> OpenAICompletionsCompat:
    """Detected settings with every switch present in ``model.compat`` overriding them.

    Raises:
        pydantic.ValidationError: when ``model.compat`` holds a value of the wrong type.
    """
    detected = detect_compat(model)
    if not model.compat:
        return detected
    override = OpenAICompletionsCompat.load(model.compat)
    known = type(override).model_fields
    updates = {name: getattr(override, name) for name in override.model_fields_set & known.keys()}
    return detected.model_copy(update=updates)
