"""The conversation as plain text for a summariser (pi's ``serializeConversation``, §6.5).

Serialising (instead of sending the messages as a conversation) keeps the summariser from
continuing the conversation. Tool results are cut at 2000 characters; user and assistant
text never are.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitui.agent.messages import AgentMessage
from pitui.ai.types import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.compaction.jsjson import js_keys, js_stringify, utf16_len, utf16_slice
from pitui.core.messages import convert_to_llm, text_of

TOOL_RESULT_MAX_CHARS = 2000
"""Tool results longer than this (UTF-16 code units) are cut for the summariser."""


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """First ``max_chars`` characters plus a note of how many more were cut."""
    length = utf16_len(text)
    if length <= max_chars:
        return text
    return f"{utf16_slice(text, max_chars)}\n\n[... {length - max_chars} more characters truncated]"


def _tool_call_text(call: ToolCall) -> str:
    args = call.arguments
    arguments = ", ".join(f"{k}={js_stringify(args[k])}" for k in js_keys(args))
    return f"{call.name}({arguments})"


def _assistant_parts(message: AssistantMessage, parts: list[str]) -> None:
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[str] = []
    for block in message.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ThinkingContent):
            thoughts.append(block.thinking)
        elif isinstance(block, ToolCall):
            calls.append(_tool_call_text(block))
    if thoughts:
        parts.append("[Assistant thinking]: " + "\n".join(thoughts))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))


def serialize_conversation(messages: Sequence[Message]) -> str:
    """pi's text form of protocol messages (``[User]: …``), joined by blank lines."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            text = text_of(message.content)
            if text:
                parts.append("[User]: " + text)
        elif isinstance(message, AssistantMessage):
            _assistant_parts(message, parts)
        elif isinstance(message, ToolResultMessage):
            text = text_of(message.content)
            if text:
                parts.append("[Tool result]: " + truncate_for_summary(text))
    return "\n\n".join(parts)


def serialize_agent_messages(messages: Sequence[AgentMessage]) -> str:
    """:func:`serialize_conversation` after ``convert_to_llm`` (custom roles as user text)."""
    return serialize_conversation(convert_to_llm(list(messages)))
