"""A protocol message as readable text, whole or as a one-line preview.

Used where the user looks at what a request carries (the context report in the CLI and
the TUI's context inspector). Text blocks are given verbatim; tool calls as their name
and JSON arguments; images by type and size, never their data.
"""

from __future__ import annotations

import json

from pitui.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from pitui.core.context_unsent import flat


def _image(block: ImageContent) -> str:
    return f"[image {block.mime_type}, {len(block.data) * 3 // 4} bytes]"


def _arguments(call: ToolCall) -> str:
    return json.dumps(call.arguments, ensure_ascii=False, indent=2)


def message_sections(message: Message) -> list[tuple[str, str]]:
    """``(heading, text)`` per content block, in order, as the request carries them."""
    content = message.content
    if isinstance(content, str):
        return [("text", content)]
    sections: list[tuple[str, str]] = []
    for block in content:
        if isinstance(block, TextContent):
            sections.append(("text", block.text))
        elif isinstance(block, ThinkingContent):
            heading = "thinking (redacted)" if block.redacted else "thinking"
            sections.append((heading, block.thinking))
        elif isinstance(block, ToolCall):
            sections.append((f"tool call {block.name} ({block.id})", _arguments(block)))
        elif isinstance(block, ImageContent):
            sections.append(("image", _image(block)))
    return sections


def message_heading(message: Message) -> str:
    """The message's role, with what a role alone does not say."""
    if isinstance(message, ToolResultMessage):
        state = " (error)" if message.is_error else ""
        return f"toolResult for {message.tool_name} ({message.tool_call_id}){state}"
    if isinstance(message, AssistantMessage):
        return f"assistant {message.provider}/{message.model} · stop: {message.stop_reason}"
    return message.role


def message_text(message: Message) -> str:
    """The whole message as plain text: a heading, then every block under its own rule."""
    parts = [message_heading(message)]
    for heading, text in message_sections(message):
        parts.append(f"── {heading} ──\n{text}")
    return "\n\n".join(parts)


def message_preview(message: Message, width: int = 80) -> str:
    """One line: text blocks, ``→ name(args)`` for tool calls, ``[image]`` for images."""
    content = message.content
    if isinstance(content, str):
        return flat(content, width)
    parts = []
    for block in content:
        if isinstance(block, ToolCall):
            parts.append(f"→ {block.name}({json.dumps(block.arguments, ensure_ascii=False)})")
        elif isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ThinkingContent):
            parts.append(block.thinking)
        else:
            parts.append(f"[{block.type}]")
    return flat(" ".join(parts), width)
