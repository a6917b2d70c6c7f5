"""Token estimates (chars/4 per message) and context size (PI_SPEC §6.2).

Two forms of every estimate: one over typed messages (the agent's transcript) and one over
the raw JSON objects of a session file, so a 100k-entry file can be measured without
validating its entries. Both count JavaScript string lengths (UTF-16 code units).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from pitui.agent.messages import AgentMessage
from pitui.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pitui.core.compaction.jsjson import js_stringify, utf16_len
from pitui.core.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)

IMAGE_CHARS = 4800
"""An image counts as 4800 characters (1200 tokens)."""


def _ceil_quarter(chars: int) -> int:
    return -(-chars // 4)


def _blocks_chars(content: object, images: bool) -> int:
    if isinstance(content, str):
        return utf16_len(content)
    chars = 0
    for block in content if isinstance(content, list) else ():
        if isinstance(block, TextContent):
            chars += utf16_len(block.text)
        elif images and isinstance(block, ImageContent):
            chars += IMAGE_CHARS
    return chars


def estimate_tokens(message: AgentMessage) -> int:
    """pi's ``estimateTokens``: ceil(chars / 4) with the per-role rules of §6.2."""
    if isinstance(message, UserMessage):
        return _ceil_quarter(_blocks_chars(message.content, images=False))
    if isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += utf16_len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += utf16_len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += utf16_len(block.name) + utf16_len(js_stringify(block.arguments))
        return _ceil_quarter(chars)
    if isinstance(message, ToolResultMessage | CustomMessage):
        return _ceil_quarter(_blocks_chars(message.content, images=True))
    if isinstance(message, BashExecutionMessage):
        return _ceil_quarter(utf16_len(message.command) + utf16_len(message.output))
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        return _ceil_quarter(utf16_len(message.summary))
    return 0


def _raw_blocks_chars(content: object, images: bool) -> int:
    if isinstance(content, str):
        return utf16_len(content)
    chars = 0
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str):
                    chars += utf16_len(text)
            elif images and kind == "image":
                chars += IMAGE_CHARS
    return chars


def _str_len(value: object) -> int:
    return utf16_len(value) if isinstance(value, str) else 0


def _raw_assistant_chars(content: object) -> int:
    # Once per assistant entry of a 100k-entry path (the context report, compaction):
    # the string lengths are inlined (utf16_len's ASCII case).
    chars = 0
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            value = block.get("text")
        elif kind == "thinking":
            value = block.get("thinking")
        elif kind == "toolCall":
            arguments = block.get("arguments")
            chars += _str_len(block.get("name")) + utf16_len(js_stringify(arguments))
            continue
        else:
            continue
        if isinstance(value, str):
            chars += len(value) if value.isascii() else utf16_len(value)
    return chars


def estimate_raw_message(message: Mapping[str, Any]) -> int:
    """:func:`estimate_tokens` of a message given as its JSON object."""
    role = message.get("role")
    if role == "user":
        return _ceil_quarter(_raw_blocks_chars(message.get("content"), images=False))
    if role == "assistant":
        return _ceil_quarter(_raw_assistant_chars(message.get("content")))
    if role in ("toolResult", "custom"):
        return _ceil_quarter(_raw_blocks_chars(message.get("content"), images=True))
    if role == "bashExecution":
        return _ceil_quarter(_str_len(message.get("command")) + _str_len(message.get("output")))
    if role in ("branchSummary", "compactionSummary"):
        return _ceil_quarter(_str_len(message.get("summary")))
    return 0


def estimate_raw_entry(entry: Mapping[str, Any]) -> int:
    """Estimate of the message a session entry stands for (0 for entries that have none)."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        return estimate_raw_message(message) if isinstance(message, dict) else 0
    if kind == "custom_message":
        return _ceil_quarter(_raw_blocks_chars(entry.get("content"), images=True))
    if kind in ("branch_summary", "compaction"):
        return _ceil_quarter(_str_len(entry.get("summary")))
    return 0


def estimate_messages_tokens(messages: Sequence[AgentMessage]) -> int:
    """Sum of :func:`estimate_tokens` (no usage figures: comparable before and after)."""
    return sum(map(estimate_tokens, messages))


def calculate_context_tokens(usage: Usage) -> int:
    """Context size a reply reports: ``totalTokens``, or the sum of its parts when 0."""
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


def raw_context_tokens(usage: Mapping[str, Any]) -> int:
    """:func:`calculate_context_tokens` of a usage object given as JSON."""
    total = usage.get("totalTokens")
    if total:
        return int(total)
    parts = ("input", "output", "cacheRead", "cacheWrite")
    return int(sum(v for k in parts if isinstance(v := usage.get(k), int | float)))


def valid_usage(message: AgentMessage) -> Usage | None:
    """The usage of an assistant reply that neither failed nor was aborted."""
    if isinstance(message, AssistantMessage) and message.stop_reason not in ("aborted", "error"):
        return message.usage
    return None


def raw_valid_usage(message: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """:func:`valid_usage` of a message given as JSON."""
    if message.get("role") != "assistant" or message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message.get("usage")
    return usage if isinstance(usage, dict) else None


class ContextUsageEstimate(msgspec.Struct, frozen=True):
    """Context size: the last valid usage plus estimates of the messages after it."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> ContextUsageEstimate:
    """pi's ``estimateContextTokens`` over a transcript."""
    for index in range(len(messages) - 1, -1, -1):
        usage = valid_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
            return ContextUsageEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = sum(estimate_tokens(m) for m in messages)
    return ContextUsageEstimate(estimated, 0, estimated, None)


def should_compact(context_tokens: int, context_window: int, reserve_tokens: int) -> bool:
    """Threshold rule: compact when the context leaves less than ``reserve_tokens`` free."""
    return context_tokens > context_window - reserve_tokens
