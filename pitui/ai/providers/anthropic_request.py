"""Anthropic Messages request building: pi messages → ``/v1/messages`` body and headers.

Follows PI_SPEC §2.2 / §2.5 / §2.8, and where pi's own later choices are visible in what
the real pi CLI sent (``tests/fixtures/pi-cli/anthropic``), those: tools carry
``eager_input_streaming`` and the last tool carries the cache breakpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pitui.ai.options import StreamOptions
from pitui.ai.schema import self_contained
from pitui.ai.transform import normalize_id_anthropic, strip_unpaired_surrogates, transform_messages
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

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
CLAUDE_CODE_VERSION = "2.1.75"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
# Claude Code 2.x tool names in their canonical casing (OAuth requests must use them).
CLAUDE_CODE_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
)
_CC_LOOKUP = {name.lower(): name for name in CLAUDE_CODE_TOOLS}

DEFAULT_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
_MIN_OUTPUT_TOKENS = 1024
_IMAGE_PLACEHOLDER = "(see attached image)"

Json = dict[str, Any]


def is_oauth_token(api_key: str) -> bool:
    """Claude subscription tokens are sent as Bearer auth with Claude Code identity."""
    return "sk-ant-oat" in api_key


def to_claude_code_name(name: str) -> str:
    """``read`` → ``Read`` for names on Claude Code's list; others unchanged."""
    return _CC_LOOKUP.get(name.lower(), name)


def from_claude_code_name(name: str, tools: list[Tool] | None) -> str:
    """Map a received tool name back to the caller's own tool of that name (any casing)."""
    lower = name.lower()
    for tool in tools or ():
        if tool.name.lower() == lower:
            return tool.name
    return name


def supports_adaptive_thinking(model_id: str) -> bool:
    """Opus 4.6 and Sonnet 4.6 think adaptively with an effort level instead of a budget."""
    return any(tag in model_id for tag in ("opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6"))


def _effort(level: ThinkingLevel, model_id: str) -> str:
    if level in ("minimal", "low"):
        return "low"
    if level == "medium":
        return "medium"
    if level == "xhigh" and ("opus-4-6" in model_id or "opus-4.6" in model_id):
        return "max"
    return "high"


@dataclass(slots=True)
class ThinkingPlan:
    """``max_tokens`` and the ``thinking`` / ``output_config`` params of one request."""

    max_tokens: int
    thinking: Json | None = None
    output_config: Json | None = None
    enabled: bool = False


def plan_thinking(model: Model, options: StreamOptions) -> ThinkingPlan:
    """Apply PI_SPEC §2.8: budgets per level, or adaptive thinking with an effort."""
    base = options.max_tokens or min(model.max_tokens, 32_000)
    level = options.reasoning
    if level == "off":
        return ThinkingPlan(max_tokens=base)
    if supports_adaptive_thinking(model.id):
        if not model.reasoning:
            return ThinkingPlan(max_tokens=base, enabled=True)
        return ThinkingPlan(
            max_tokens=base,
            thinking={"type": "adaptive"},
            output_config={"effort": _effort(level, model.id)},
            enabled=True,
        )
    clamped = "high" if level == "xhigh" else level
    budgets = {**DEFAULT_BUDGETS, **(options.thinking_budgets or {})}
    budget = budgets[clamped]
    max_tokens = min(base + budget, model.max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - _MIN_OUTPUT_TOKENS)
    thinking = {"type": "enabled", "budget_tokens": budget or 1024} if model.reasoning else None
    return ThinkingPlan(max_tokens=max_tokens, thinking=thinking, enabled=True)


def cache_control(model: Model, options: StreamOptions) -> Json | None:
    """The breakpoint marker for the retention preference (PI_SPEC §2.5)."""
    if options.cache_retention == "none":
        return None
    long_supported = (model.compat or {}).get("supportsLongCacheRetention")
    if long_supported is None:
        long_supported = "api.anthropic.com" in (model.base_url or DEFAULT_BASE_URL)
    if options.cache_retention == "long" and long_supported:
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


def eager_tool_streaming(model: Model) -> bool:
    """Per-tool ``eager_input_streaming`` (pi's default), unless the server lacks it."""
    return bool((model.compat or {}).get("supportsEagerToolInputStreaming", True))


def build_headers(model: Model, context: Context, api_key: str) -> dict[str, str]:
    """Auth, version and beta headers as pi's client sends them, then the model's own."""
    betas: list[str] = []
    if context.tools and not eager_tool_streaming(model):
        betas.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    if not supports_adaptive_thinking(model.id):
        # pi enables interleaved thinking by default; adaptive models have it built in.
        betas.append(INTERLEAVED_THINKING_BETA)
    headers = {
        "anthropic-version": API_VERSION,
        "anthropic-dangerous-direct-browser-access": "true",
    }
    if is_oauth_token(api_key):
        headers["authorization"] = f"Bearer {api_key}"
        headers["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION}"
        headers["x-app"] = "cli"
        betas = [*OAUTH_BETAS, *betas]
    else:
        headers["x-api-key"] = api_key
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    headers.update(model.headers or {})
    return headers


def build_body(model: Model, context: Context, options: StreamOptions, oauth: bool) -> Json:
    """The JSON body of one streaming ``/v1/messages`` request."""
    control = cache_control(model, options)
    plan = plan_thinking(model, options)
    body: Json = {
        "model": model.id,
        "messages": convert_messages(context.messages, model, oauth, control),
        "max_tokens": plan.max_tokens,
        "stream": True,
    }
    system = _system_blocks(context.system_prompt, oauth, control)
    if system:
        body["system"] = system
    if options.temperature is not None and not plan.enabled:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools, oauth, eager_tool_streaming(model), control)
    if plan.thinking is not None:
        body["thinking"] = plan.thinking
        if plan.output_config is not None:
            body["output_config"] = plan.output_config
    return body


def _system_blocks(prompt: str | None, oauth: bool, control: Json | None) -> list[Json]:
    texts = [CLAUDE_CODE_IDENTITY] if oauth else []
    if prompt:
        texts.append(strip_unpaired_surrogates(prompt))
    return [_with_control({"type": "text", "text": text}, control) for text in texts]


def _with_control(block: Json, control: Json | None) -> Json:
    if control is not None:
        block["cache_control"] = dict(control)
    return block


def convert_tools(tools: list[Tool], oauth: bool, eager: bool, control: Json | None) -> list[Json]:
    """Tool definitions: only ``properties``/``required`` of the schema are forwarded.

    References are written out first: ``$defs`` would be cut off with the rest.
    """
    out: list[Json] = []
    for i, tool in enumerate(tools):
        schema = self_contained(tool.parameters)
        entry: Json = {
            "name": to_claude_code_name(tool.name) if oauth else tool.name,
            "description": tool.description,
        }
        if eager:
            entry["eager_input_streaming"] = True
        entry["input_schema"] = {
            "type": "object",
            "properties": schema.get("properties") or {},
            "required": schema.get("required") or [],
        }
        if i == len(tools) - 1:
            _with_control(entry, control)
        out.append(entry)
    return out


# --------------------------------------------------------------------------- messages


def convert_messages(
    messages: list[Message], model: Model, oauth: bool, control: Json | None
) -> list[Json]:
    """pi messages → Anthropic ``messages`` (PI_SPEC §2.2), cache breakpoint on the last."""
    transformed = transform_messages(messages, model, normalize_id_anthropic)
    params: list[Json] = []
    pending_results: list[Json] = []
    for msg in transformed:
        if isinstance(msg, ToolResultMessage):
            pending_results.append(_tool_result(msg))
            continue
        if pending_results:
            # A run of consecutive tool results travels as one user message.
            params.append({"role": "user", "content": pending_results})
            pending_results = []
        converted = _user(msg, model) if isinstance(msg, UserMessage) else _assistant(msg, oauth)
        if converted is not None:
            params.append(converted)
    if pending_results:
        params.append({"role": "user", "content": pending_results})
    if control is not None and params:
        _mark_last_user(params[-1], control)
    return params


def _user(msg: UserMessage, model: Model) -> Json | None:
    if isinstance(msg.content, str):
        if not msg.content.strip():
            return None
        return {"role": "user", "content": strip_unpaired_surrogates(msg.content)}
    accepts_images = "image" in model.input
    blocks: list[Json] = []
    for item in msg.content:
        if isinstance(item, TextContent):
            if item.text.strip():
                blocks.append({"type": "text", "text": strip_unpaired_surrogates(item.text)})
        elif accepts_images:
            blocks.append(_image(item))
    return {"role": "user", "content": blocks} if blocks else None


def _image(item: ImageContent) -> Json:
    source = {"type": "base64", "media_type": item.mime_type, "data": item.data}
    return {"type": "image", "source": source}


def _assistant(msg: AssistantMessage, oauth: bool) -> Json | None:
    blocks: list[Json] = []
    for block in msg.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": strip_unpaired_surrogates(block.text)})
        elif isinstance(block, ThinkingContent):
            converted = _thinking(block)
            if converted is not None:
                blocks.append(converted)
        elif isinstance(block, ToolCall):
            blocks.append(_tool_use(block, oauth))
    return {"role": "assistant", "content": blocks} if blocks else None


def _thinking(block: ThinkingContent) -> Json | None:
    if block.redacted:
        return {"type": "redacted_thinking", "data": block.thinking_signature or ""}
    if not block.thinking.strip():
        return None
    text = strip_unpaired_surrogates(block.thinking)
    signature = block.thinking_signature
    if not signature or not signature.strip():
        # An unsigned thinking block (e.g. from an aborted stream) would be rejected.
        return {"type": "text", "text": text}
    return {"type": "thinking", "thinking": text, "signature": signature}


def _tool_use(block: ToolCall, oauth: bool) -> Json:
    name = to_claude_code_name(block.name) if oauth else block.name
    return {"type": "tool_use", "id": block.id, "name": name, "input": block.arguments or {}}


def _tool_result(msg: ToolResultMessage) -> Json:
    return {
        "type": "tool_result",
        "tool_use_id": msg.tool_call_id,
        "content": _tool_result_content(msg.content),
        "is_error": msg.is_error,
    }


def _tool_result_content(content: list[TextContent | ImageContent]) -> str | list[Json]:
    if not any(isinstance(c, ImageContent) for c in content):
        texts = (c.text for c in content if isinstance(c, TextContent))
        return strip_unpaired_surrogates("\n".join(texts))
    blocks = [
        {"type": "text", "text": strip_unpaired_surrogates(c.text)}
        if isinstance(c, TextContent)
        else _image(c)
        for c in content
    ]
    if not any(isinstance(c, TextContent) for c in content):
        blocks.insert(0, {"type": "text", "text": _IMAGE_PLACEHOLDER})
    return blocks


def _mark_last_user(message: Json, control: Json) -> None:
    if message["role"] != "user":
        return
    content = message["content"]
    if isinstance(content, str):
        message["content"] = [{"type": "text", "text": content, "cache_control": dict(control)}]
    elif content and content[-1].get("type") in ("text", "image", "tool_result"):
        content[-1]["cache_control"] = dict(control)
