"""The cross-provider replay transform every adapter runs before wire conversion (PI_SPEC §2.1).

A conversation may mix replies from several models. Before it is sent to one target model,
blocks only that model can read (signatures, redacted reasoning) are dropped or turned into
plain text, tool-call ids are normalised to what the target accepts, tool calls left without
a result get a synthetic error result, and failed replies are left out.

Also here: the three tool-call id normalisers and :func:`strip_unpaired_surrogates` (§1.7),
which every adapter applies to outgoing text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pitui.ai.partial_json import JS_WHITESPACE
from pitui.ai.types import (
    AssistantContent,
    AssistantMessage,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from pitui.lazy_pattern import lazy_pattern

__all__ = [
    "AZURE_TOOL_CALL_PROVIDERS",
    "NO_RESULT_TEXT",
    "OPENAI_TOOL_CALL_PROVIDERS",
    "NormalizeToolCallId",
    "is_same_model",
    "missing_tool_results",
    "normalize_id_anthropic",
    "normalize_id_openai_completions",
    "normalize_id_openai_responses",
    "strip_unpaired_surrogates",
    "transform_messages",
]

NormalizeToolCallId = Callable[[str, Model, AssistantMessage], str]
"""``(tool_call_id, target_model, source_message) -> id the target accepts``."""

NO_RESULT_TEXT = "No result provided"
"""Text of the synthetic error result given to a tool call that never got one."""

#: Target providers whose Responses API takes (and needs normalised) ``call|item`` ids.
OPENAI_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
#: The same for Azure OpenAI Responses.
AZURE_TOOL_CALL_PROVIDERS = OPENAI_TOOL_CALL_PROVIDERS | {"azure-openai-responses"}


def is_same_model(message: AssistantMessage, model: Model) -> bool:
    """True when ``message`` came from ``model`` (same provider, api and model id)."""
    return (
        message.provider == model.provider
        and message.api == model.api
        and message.model == model.id
    )


def transform_messages(
    messages: Sequence[Message],
    model: Model,
    normalize_tool_call_id: NormalizeToolCallId | None = None,
) -> list[Message]:
    """Prepare a conversation for replay to ``model`` (PI_SPEC §2.1, passes 1 and 2).

    Args:
        messages: The conversation; never mutated (changed messages and blocks are copies,
            unchanged ones are shared with the input).
        model: The target model.
        normalize_tool_call_id: The target provider's id normaliser, applied to tool calls
            from other models; results of renamed calls follow their call.

    Returns:
        The messages to convert to the wire format.
    """
    id_map: dict[str, str] = {}
    converted = [_convert(message, model, normalize_tool_call_id, id_map) for message in messages]
    return _repair_tool_results(converted)


# --------------------------------------------------------------------------- pass 1


def _convert(
    message: Message,
    model: Model,
    normalize: NormalizeToolCallId | None,
    id_map: dict[str, str],
) -> Message:
    if isinstance(message, AssistantMessage):
        return _convert_assistant(message, model, normalize, id_map)
    if isinstance(message, ToolResultMessage):
        new_id = id_map.get(message.tool_call_id)
        if new_id and new_id != message.tool_call_id:
            return message.model_copy(update={"tool_call_id": new_id})
    return message


def _convert_assistant(
    message: AssistantMessage,
    model: Model,
    normalize: NormalizeToolCallId | None,
    id_map: dict[str, str],
) -> AssistantMessage:
    same = is_same_model(message, model)
    content: list[AssistantContent] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            kept = _convert_thinking(block, same)
            if kept is not None:
                content.append(kept)
        elif isinstance(block, TextContent):
            content.append(block if same else TextContent(text=block.text))
        elif same:
            content.append(block)
        else:
            content.append(_convert_tool_call(block, message, model, normalize, id_map))
    return message.model_copy(update={"content": content})


def _convert_thinking(block: ThinkingContent, same: bool) -> ThinkingContent | TextContent | None:
    if block.redacted:
        # Opaque encrypted reasoning: only the model that wrote it can read it.
        return block if same else None
    if same and block.thinking_signature:
        return block  # kept even when empty: encrypted reasoning lives in the signature
    if not block.thinking.strip(JS_WHITESPACE):
        return None
    return block if same else TextContent(text=block.thinking)


def _convert_tool_call(
    block: ToolCall,
    source: AssistantMessage,
    model: Model,
    normalize: NormalizeToolCallId | None,
    id_map: dict[str, str],
) -> ToolCall:
    converted = block
    if block.thought_signature:
        converted = block.model_copy()
        converted.thought_signature = None
        converted.__pydantic_fields_set__.discard("thought_signature")
    if normalize is not None:
        new_id = normalize(block.id, model, source)
        if new_id != block.id:
            id_map[block.id] = new_id
            converted = converted.model_copy(update={"id": new_id})
    return converted


# --------------------------------------------------------------------------- pass 2


def _repair_tool_results(messages: list[Message]) -> list[Message]:
    """Give unanswered tool calls a synthetic result; drop failed assistant replies."""
    inserts = iter(missing_tool_results(messages))
    insert = next(inserts, None)
    result: list[Message] = []
    for index, message in enumerate(messages):
        while insert is not None and insert[0] == index:
            result.append(insert[1])
            insert = next(inserts, None)
        if isinstance(message, AssistantMessage) and message.stop_reason in ("error", "aborted"):
            continue  # incomplete turns are never replayed
        result.append(message)
    return result


def missing_tool_results(
    messages: Sequence[Message], *, at_end: bool = False
) -> list[tuple[int, ToolResultMessage]]:
    """The synthetic results the replay inserts: ``(index of the message each goes
    before, result)``, in order.

    A tool call still unanswered when the next turn starts gets an error result saying
    ``No result provided``; calls of failed replies get none (the reply is left out).
    ``at_end``: also the calls still open after the last message (their results go
    before the next message sent, e.g. the next prompt), at index ``len(messages)``.
    """
    inserts: list[tuple[int, ToolResultMessage]] = []
    pending: list[ToolCall] = []
    answered: set[str] = set()
    for index, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
            continue
        if pending:
            # A new turn starts: calls still unanswered will never be answered.
            inserts += [(index, _no_result(c)) for c in pending if c.id not in answered]
            pending, answered = [], set()
        if isinstance(message, AssistantMessage) and message.stop_reason not in (
            "error",
            "aborted",
        ):
            pending = message.tool_calls()
    if at_end:
        inserts += [(len(messages), _no_result(c)) for c in pending if c.id not in answered]
    return inserts


def _no_result(call: ToolCall) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[TextContent(text=NO_RESULT_TEXT)],
        is_error=True,
    )


# --------------------------------------------------------------------------- id normalisers

_DISALLOWED = lazy_pattern(r"[^a-zA-Z0-9_-]")
_ALLOWED_ID = lazy_pattern(r"[a-zA-Z0-9_-]*")


def _sanitize(tool_call_id: str) -> str:
    """Replace characters outside ``[A-Za-z0-9_-]`` with ``_``, one per UTF-16 unit (as JS)."""
    if _ALLOWED_ID.fullmatch(tool_call_id):
        return tool_call_id
    return _DISALLOWED.sub(lambda m: "__" if ord(m.group()) > 0xFFFF else "_", tool_call_id)


def _utf16_slice(text: str, limit: int) -> str:
    """JS ``text.slice(0, limit)``: the first ``limit`` UTF-16 code units."""
    if text.isascii():
        return text[:limit]
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * limit]
    return units.decode("utf-16-le", "surrogatepass")


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def normalize_id_anthropic(
    tool_call_id: str, model: Model | None = None, source: AssistantMessage | None = None
) -> str:
    """Anthropic: ``[A-Za-z0-9_-]`` only, at most 64 characters."""
    return _sanitize(tool_call_id)[:64]


def normalize_id_openai_completions(
    tool_call_id: str, model: Model, source: AssistantMessage | None = None
) -> str:
    """Chat Completions: the call part of a Responses ``call|item`` id, sanitised, ≤ 40 chars.

    Other ids pass unchanged, except that the ``openai`` provider gets them cut to 40.
    """
    if "|" in tool_call_id:
        return _sanitize(tool_call_id.split("|", 1)[0])[:40]
    if model.provider == "openai" and _utf16_length(tool_call_id) > 40:
        return _utf16_slice(tool_call_id, 40)
    return tool_call_id


def normalize_id_openai_responses(
    tool_call_id: str,
    model: Model,
    source: AssistantMessage | None = None,
    *,
    allowed_providers: frozenset[str] = OPENAI_TOOL_CALL_PROVIDERS,
) -> str:
    """OpenAI Responses: normalise ``call|item`` ids for providers in ``allowed_providers``.

    Both halves are sanitised, the item gets an ``fc_`` prefix unless it starts with
    ``fc``, each half is cut to 64 characters and loses trailing underscores. Ids without
    ``|``, and every id for other target providers, pass unchanged.
    """
    if model.provider not in allowed_providers or "|" not in tool_call_id:
        return tool_call_id
    parts = tool_call_id.split("|")
    call_id = _sanitize(parts[0])
    item_id = _sanitize(parts[1])  # JS destructuring: a third part is ignored
    if not item_id.startswith("fc"):
        item_id = f"fc_{item_id}"
    return f"{call_id[:64].rstrip('_')}|{item_id[:64].rstrip('_')}"


# --------------------------------------------------------------------------- surrogates

_SURROGATES = lazy_pattern("([\ud800-\udbff])([\udc00-\udfff])|[\ud800-\udfff]")


def _join_pair(match: re.Match[str]) -> str:
    high, low = match.group(1), match.group(2)
    if high is None:
        return ""  # unpaired: dropped
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def strip_unpaired_surrogates(text: str) -> str:
    """Remove lone UTF-16 surrogates, which break JSON encoding at every provider (§1.7).

    In Python they appear as code points U+D800–U+DFFF (e.g. from a ``\\ud83d`` JSON
    escape). A high surrogate directly followed by a low one is a valid pair: it is kept,
    joined into the character it encodes, so the text can be encoded as UTF-8.
    """
    if text.isascii() or not _SURROGATES.search(text):
        return text
    return _SURROGATES.sub(_join_pair, text)
