"""Request body of the OpenAI Chat Completions adapter (PI_SPEC 2.3, 2.5).

pi messages → ``messages`` (system/developer, user parts, assistant content + reasoning
echo + tool_calls, ``tool`` results, images from tool results as a follow-up user
message), tools, token limit, reasoning switches and OpenRouter cache control, each
shaped by the server's :class:`OpenAICompletionsCompat`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pitui.ai.options import StreamOptions
from pitui.ai.providers._openai_common import (
    endpoint,
    image_url,
    max_output_tokens,
    reasoning_effort,
)
from pitui.ai.providers.openai_compat import OpenAICompletionsCompat
from pitui.ai.schema import self_contained
from pitui.ai.transform import (
    normalize_id_openai_completions,
    strip_unpaired_surrogates,
    transform_messages,
)
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

Json = dict[str, Any]
ASSISTANT_BRIDGE = "I have processed the tool results."
TOOL_IMAGES_INTRO = "Attached image(s) from tool result:"
IMAGE_PLACEHOLDER = "(see attached image)"


def build_body(
    model: Model, context: Context, options: StreamOptions, compat: OpenAICompletionsCompat
) -> Json:
    """The JSON body pi would POST to ``/chat/completions`` for this call."""
    messages = convert_messages(model, context, compat)
    if compat.cache_control_format == "anthropic" and options.cache_retention != "none":
        _add_anthropic_cache_control(messages)
    body: Json = {"model": model.id, "messages": messages, "stream": True}
    _add_prompt_cache(body, model, options, compat)
    if compat.supports_usage_in_streaming:
        body["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        body["store"] = False
    body[compat.max_tokens_field] = max_output_tokens(model, options)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [_tool(tool, compat) for tool in context.tools]
    elif _has_tool_history(context.messages):
        # Proxies in front of Anthropic reject tool history without a tools field.
        body["tools"] = []
    _add_reasoning(body, model, options, compat)
    _add_routing(body, model)
    return body


def _add_prompt_cache(
    body: Json, model: Model, options: StreamOptions, compat: OpenAICompletionsCompat
) -> None:
    """OpenAI's prompt cache key (= session id) and 24h retention, as pi 0.73 sends them."""
    retention = options.cache_retention
    long_ok = retention == "long" and compat.supports_long_cache_retention
    on_openai = "api.openai.com" in endpoint(model, "")
    if options.session_id and ((on_openai and retention != "none") or long_ok):
        body["prompt_cache_key"] = options.session_id
    if long_ok:
        body["prompt_cache_retention"] = "24h"


def _tool(tool: Tool, compat: OpenAICompletionsCompat) -> Json:
    function: Json = {
        "name": tool.name,
        "description": tool.description,
        "parameters": self_contained(tool.parameters),
    }
    if compat.supports_strict_mode:
        function["strict"] = False
    return {"type": "function", "function": function}


def _has_tool_history(messages: Sequence[Message]) -> bool:
    for message in messages:
        if isinstance(message, ToolResultMessage):
            return True
        if isinstance(message, AssistantMessage) and message.tool_calls():
            return True
    return False


def _add_reasoning(
    body: Json, model: Model, options: StreamOptions, compat: OpenAICompletionsCompat
) -> None:
    if not model.reasoning:
        return
    effort = reasoning_effort(model, options)
    fmt = compat.thinking_format
    if fmt in ("zai", "qwen"):
        body["enable_thinking"] = effort is not None
    elif fmt == "qwen-chat-template":
        body["chat_template_kwargs"] = {"enable_thinking": effort is not None}
    elif fmt == "deepseek":
        body["thinking"] = {"type": "enabled" if effort else "disabled"}
        if effort:
            body["reasoning_effort"] = compat.reasoning_effort_map.get(effort, effort)
    elif fmt == "openrouter":
        if effort:
            body["reasoning"] = {"effort": compat.reasoning_effort_map.get(effort, effort)}
    elif effort and compat.supports_reasoning_effort:
        body["reasoning_effort"] = compat.reasoning_effort_map.get(effort, effort)


def _add_routing(body: Json, model: Model) -> None:
    raw = model.compat or {}
    if "openrouter.ai" in model.base_url and raw.get("openRouterRouting"):
        body["provider"] = raw["openRouterRouting"]
    routing = raw.get("vercelGatewayRouting")
    if "ai-gateway.vercel.sh" in model.base_url and isinstance(routing, dict):
        gateway = {key: routing[key] for key in ("only", "order") if routing.get(key)}
        if gateway:
            body["providerOptions"] = {"gateway": gateway}


def _add_anthropic_cache_control(messages: list[Json]) -> None:
    """Mark the last text of the last user/assistant message with text (PI_SPEC 2.5)."""
    marker = {"type": "ephemeral"}
    for message in reversed(messages):
        if message["role"] not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            message["content"] = [{"type": "text", "text": content, "cache_control": marker}]
            return
        if not isinstance(content, list):
            continue
        for part in reversed(content):
            if part.get("type") == "text":
                part["cache_control"] = marker
                return


# --------------------------------------------------------------------------- messages


def convert_messages(model: Model, context: Context, compat: OpenAICompletionsCompat) -> list[Json]:
    """pi messages → Chat Completions ``messages`` (PI_SPEC 2.3)."""
    out: list[Json] = []
    if context.system_prompt:
        developer = model.reasoning and compat.supports_developer_role
        role = "developer" if developer else "system"
        out.append({"role": role, "content": strip_unpaired_surrogates(context.system_prompt)})
    messages = transform_messages(context.messages, model, normalize_id_openai_completions)
    last_role: str | None = None
    i = 0
    while i < len(messages):
        message = messages[i]
        if (
            compat.requires_assistant_after_tool_result
            and last_role == "toolResult"
            and isinstance(message, UserMessage)
        ):
            out.append({"role": "assistant", "content": ASSISTANT_BRIDGE})
        if isinstance(message, ToolResultMessage):
            run_end = i
            while run_end < len(messages) and isinstance(messages[run_end], ToolResultMessage):
                run_end += 1
            results = [m for m in messages[i:run_end] if isinstance(m, ToolResultMessage)]
            last_role = _convert_tool_results(results, model, compat, out)
            i = run_end
            continue
        if isinstance(message, UserMessage):
            converted = _convert_user(message, model)
        else:
            converted = _convert_assistant(message, compat)
        if converted is not None:
            out.append(converted)
        last_role = message.role
        i += 1
    return out


def _convert_user(message: UserMessage, model: Model) -> Json | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": strip_unpaired_surrogates(message.content)}
    parts: list[Json] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": strip_unpaired_surrogates(block.text)})
        elif "image" in model.input:
            url = image_url(block.mime_type, block.data)
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": "user", "content": parts} if parts else None


def _convert_assistant(message: AssistantMessage, compat: OpenAICompletionsCompat) -> Json | None:
    # Some servers reject ``content: null``; those also want the bridging message.
    content: str | list[Json] | None = "" if compat.requires_assistant_after_tool_result else None
    out: Json = {"role": "assistant", "content": content}
    texts = [
        strip_unpaired_surrogates(b.text)
        for b in message.content
        if isinstance(b, TextContent) and b.text.strip()
    ]
    if texts:
        # Always a plain string: some models mirror a part array back literally.
        out["content"] = "".join(texts)
    _echo_thinking(message, compat, out)
    calls = message.tool_calls()
    if calls:
        out["tool_calls"] = [_tool_call(call) for call in calls]
        details = _reasoning_details(calls)
        if details:
            out["reasoning_details"] = details
    if compat.requires_reasoning_content_on_assistant_messages:
        out.setdefault("reasoning_content", "")
    if not out["content"] and not calls:
        return None
    return out


def _echo_thinking(message: AssistantMessage, compat: OpenAICompletionsCompat, out: Json) -> None:
    thinking = [b for b in message.content if isinstance(b, ThinkingContent) and b.thinking.strip()]
    if not thinking:
        return
    if compat.requires_thinking_as_text:
        part = {"type": "text", "text": "\n\n".join(b.thinking for b in thinking)}
        existing = out["content"]
        if isinstance(existing, str) and existing:
            out["content"] = [part, {"type": "text", "text": existing}]
        else:
            out["content"] = [part]
        return
    # The signature names the delta field the reasoning arrived in; echo it there.
    field = thinking[0].thinking_signature
    if field:
        out[field] = "\n".join(b.thinking for b in thinking)


def _tool_call(call: ToolCall) -> Json:
    arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _reasoning_details(calls: Sequence[ToolCall]) -> list[Any]:
    details: list[Any] = []
    for call in calls:
        if not call.thought_signature:
            continue
        try:
            parsed = json.loads(call.thought_signature)
        except ValueError:
            continue
        if parsed:
            details.append(parsed)
    return details


def _convert_tool_results(
    results: Sequence[ToolResultMessage],
    model: Model,
    compat: OpenAICompletionsCompat,
    out: list[Json],
) -> str:
    """Append one ``tool`` message per result, then any images; return the last role."""
    images: list[Json] = []
    for result in results:
        text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
        message: Json = {
            "role": "tool",
            "content": strip_unpaired_surrogates(text if text else IMAGE_PLACEHOLDER),
            "tool_call_id": result.tool_call_id,
        }
        if compat.requires_tool_result_name and result.tool_name:
            message["name"] = result.tool_name
        out.append(message)
        if "image" in model.input:
            images.extend(
                {"type": "image_url", "image_url": {"url": image_url(b.mime_type, b.data)}}
                for b in result.content
                if isinstance(b, ImageContent)
            )
    if not images:
        return "toolResult"
    if compat.requires_assistant_after_tool_result:
        out.append({"role": "assistant", "content": ASSISTANT_BRIDGE})
    out.append({"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_INTRO}, *images]})
    return "user"
