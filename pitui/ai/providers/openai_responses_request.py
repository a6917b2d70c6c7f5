"""Request body of the OpenAI Responses adapter (PI_SPEC 2.4, 2.5).

pi messages → ``input`` items: a developer/system message, user messages with
``input_text``/``input_image`` parts, assistant turns as reasoning items (replayed
verbatim from ``thinkingSignature``), ``message`` items (id and phase from
``textSignature``) and ``function_call`` items, tool results as
``function_call_output``. Tools are flat; reasoning models get ``reasoning`` and
``include: ["reasoning.encrypted_content"]`` when an effort is requested.
"""

from __future__ import annotations

import json
from typing import Any

from pitui.ai.options import StreamOptions
from pitui.ai.providers._openai_common import (
    endpoint,
    image_url,
    max_output_tokens,
    reasoning_effort,
)
from pitui.ai.schema import self_contained
from pitui.ai.transform import (
    normalize_id_openai_responses,
    strip_unpaired_surrogates,
    transform_messages,
)
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolResultMessage,
    UserMessage,
)

Json = dict[str, Any]
IMAGE_PLACEHOLDER = "(see attached image)"
# pi's workaround for gpt-5 reasoning when no effort was requested (community.openai.com
# thread "need reasoning false option for gpt-5").
NO_REASONING_HINT = "# Juice: 0 !important"
_MAX_ITEM_ID = 64


def build_body(model: Model, context: Context, options: StreamOptions) -> Json:
    """The JSON body pi would POST to ``/responses`` for this call."""
    items = convert_input(model, context)
    retention = options.cache_retention
    body: Json = {"model": model.id, "input": items, "stream": True}
    if options.session_id and retention != "none":
        body["prompt_cache_key"] = options.session_id
    if retention == "long" and "api.openai.com" in endpoint(model, ""):
        body["prompt_cache_retention"] = "24h"
    body["store"] = False
    body["max_output_tokens"] = max_output_tokens(model, options)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [_tool(tool) for tool in context.tools]
    if model.reasoning:
        effort = reasoning_effort(model, options)
        if effort:
            body["reasoning"] = {"effort": effort, "summary": "auto"}
            body["include"] = ["reasoning.encrypted_content"]
        elif model.name.startswith("gpt-5"):
            # pi tests the display name, not the id, so catalogue "GPT-5" is not matched.
            items.append(
                {
                    "role": "developer",
                    "content": [{"type": "input_text", "text": NO_REASONING_HINT}],
                }
            )
    return body


def _tool(tool: Tool) -> Json:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": self_contained(tool.parameters),
        "strict": False,
    }


def convert_input(model: Model, context: Context) -> list[Json]:
    """pi messages → Responses ``input`` items (PI_SPEC 2.4)."""
    items: list[Json] = []
    if context.system_prompt:
        role = "developer" if model.reasoning else "system"
        items.append({"role": role, "content": strip_unpaired_surrogates(context.system_prompt)})
    messages = transform_messages(context.messages, model, normalize_id_openai_responses)
    # ``msg_<n>`` ids count the messages actually sent, as pi does.
    index = 0
    for message in messages:
        if isinstance(message, UserMessage):
            converted = _user(message, model)
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message, model, index)
        else:
            converted = [_tool_result(message, model)]
        if not converted:
            continue
        items.extend(converted)
        index += 1
    return items


def _user(message: UserMessage, model: Model) -> list[Json]:
    if isinstance(message.content, str):
        text = strip_unpaired_surrogates(message.content)
        return [{"role": "user", "content": [{"type": "input_text", "text": text}]}]
    parts: list[Json] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "input_text", "text": strip_unpaired_surrogates(block.text)})
        elif "image" in model.input:
            parts.append(_input_image(block))
    return [{"role": "user", "content": parts}] if parts else []


def _input_image(block: ImageContent) -> Json:
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": image_url(block.mime_type, block.data),
    }


def _assistant(message: AssistantMessage, model: Model, index: int) -> list[Json]:
    different_model = (
        message.model != model.id
        and message.provider == model.provider
        and message.api == model.api
    )
    items: list[Json] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.thinking_signature:
                items.append(json.loads(block.thinking_signature))
        elif isinstance(block, TextContent):
            items.append(_message_item(block, index))
        else:
            call_id, _, item_id = block.id.partition("|")
            item: Json = {"type": "function_call"}
            # OpenAI pairs fc_ items with the reasoning item that produced them; an item
            # from another model has no such partner, so its id is left out.
            if item_id and not (different_model and item_id.startswith("fc_")):
                item["id"] = item_id
            item["call_id"] = call_id
            item["name"] = block.name
            item["arguments"] = json.dumps(
                block.arguments, ensure_ascii=False, separators=(",", ":")
            )
            items.append(item)
    return items


def _message_item(block: TextContent, index: int) -> Json:
    item_id, phase = parse_text_signature(block.text_signature)
    if not item_id:
        item_id = f"msg_{index}"
    elif len(item_id) > _MAX_ITEM_ID:
        item_id = f"msg_{short_hash(item_id)}"
    item: Json = {
        "type": "message",
        "role": "assistant",
        "content": [
            {
                "type": "output_text",
                "text": strip_unpaired_surrogates(block.text),
                "annotations": [],
            }
        ],
        "status": "completed",
        "id": item_id,
    }
    if phase:
        item["phase"] = phase
    return item


def _tool_result(message: ToolResultMessage, model: Model) -> Json:
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    output: str | list[Json]
    if images and "image" in model.input:
        output = [{"type": "input_text", "text": strip_unpaired_surrogates(text)}] if text else []
        output.extend(_input_image(image) for image in images)
    else:
        output = strip_unpaired_surrogates(text if text else IMAGE_PLACEHOLDER)
    call_id = message.tool_call_id.partition("|")[0]
    return {"type": "function_call_output", "call_id": call_id, "output": output}


# --------------------------------------------------------------------------- signatures


def encode_text_signature(item_id: str, phase: str | None) -> str:
    """``textSignature`` V1: ``{"v":1,"id":…,"phase"?:…}`` (PI_SPEC 1.1)."""
    payload: Json = {"v": 1, "id": item_id}
    if phase:
        payload["phase"] = phase
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def parse_text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """``(item id, phase)`` from a V1 JSON signature or a legacy bare id."""
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def short_hash(text: str) -> str:
    """pi's ``shortHash`` (a cyrb53-style hash over UTF-16 code units), byte-identical."""
    mask = 0xFFFFFFFF
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    for unit in _utf16_units(text):
        h1 = ((h1 ^ unit) * 2654435761) & mask
        h2 = ((h2 ^ unit) * 1597334677) & mask
    h1 = (((h1 ^ (h1 >> 16)) * 2246822507) & mask) ^ (((h2 ^ (h2 >> 13)) * 3266489909) & mask)
    h2 = (((h2 ^ (h2 >> 16)) * 2246822507) & mask) ^ (((h1 ^ (h1 >> 13)) * 3266489909) & mask)
    return _base36(h2) + _base36(h1)


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if value == 0:
            return out
