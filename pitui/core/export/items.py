"""The current branch of a session as the blocks an export shows, in order.

One walk of the path from the root to the leaf; each tool result is attached to the call
that asked for it, so a reply shows its calls with their results. Entries a reader would
not see in the conversation (labels, names, extension state, custom messages with
``display: false``) are left out. The HTML and Markdown writers both render these blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from pitui.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.messages import BashExecutionMessage, CustomMessage
from pitui.core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)


@dataclass
class Image:
    """An image as base64 data."""

    mime_type: str
    data: str


@dataclass
class UserBlock:
    """What the user typed (and attached)."""

    text: str
    images: list[Image]
    timestamp: int


@dataclass
class ToolBlock:
    """One tool call with its result (None: no result on the branch)."""

    call: ToolCall
    result: ToolResultMessage | None = None

    @property
    def output(self) -> str:
        """The result's text blocks, joined."""
        if self.result is None:
            return ""
        return "\n".join(b.text for b in self.result.content if isinstance(b, TextContent))

    @property
    def images(self) -> list[Image]:
        """Images the result carries."""
        return _images(self.result.content) if self.result is not None else []


@dataclass
class ReplyBlock:
    """One assistant reply: thinking, text and tool calls in the order they came."""

    parts: list[ThinkingContent | TextContent | ToolBlock]
    model: str
    stop_reason: str
    error: str | None
    timestamp: int
    message: AssistantMessage | None = None
    """The reply itself (None for a tool result shown without its call)."""


@dataclass
class BashBlock:
    """A ``!`` (or ``!!``) command the user ran."""

    message: BashExecutionMessage


@dataclass
class CustomBlock:
    """A custom message shown in the conversation."""

    custom_type: str
    text: str
    images: list[Image]


@dataclass
class CompactionBlock:
    """A compaction: what came before was summarised."""

    summary: str
    tokens_before: int


@dataclass
class BranchSummaryBlock:
    """The summary of a branch the conversation came back from."""

    summary: str


@dataclass
class NoteBlock:
    """A one-line change of setting (model, thinking level)."""

    text: str


Block: TypeAlias = (
    UserBlock
    | ReplyBlock
    | BashBlock
    | CustomBlock
    | CompactionBlock
    | BranchSummaryBlock
    | NoteBlock
)


@dataclass
class _Walk:
    blocks: list[Block] = field(default_factory=list)
    calls: dict[str, ToolBlock] = field(default_factory=dict)


def _images(content: object) -> list[Image]:
    blocks = content if isinstance(content, list) else []
    return [Image(b.mime_type, b.data) for b in blocks if isinstance(b, ImageContent)]


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "\n".join(b.text for b in blocks if isinstance(b, TextContent))


def _reply(message: AssistantMessage, walk: _Walk) -> ReplyBlock:
    parts: list[ThinkingContent | TextContent | ToolBlock] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            tool = walk.calls[block.id] = ToolBlock(block)
            parts.append(tool)
        elif (
            isinstance(block, ThinkingContent) and not block.redacted and block.thinking.strip()
        ) or (isinstance(block, TextContent) and block.text):
            parts.append(block)
    return ReplyBlock(
        parts=parts,
        model=f"{message.provider}/{message.model}",
        stop_reason=message.stop_reason,
        error=message.error_message,
        timestamp=message.timestamp,
        message=message,
    )


def _message(message: Any, walk: _Walk) -> Block | None:
    if isinstance(message, UserMessage):
        return UserBlock(_text(message.content), _images(message.content), message.timestamp)
    if isinstance(message, AssistantMessage):
        return _reply(message, walk)
    if isinstance(message, ToolResultMessage):
        owner = walk.calls.get(message.tool_call_id)
        if owner is not None and owner.result is None:
            owner.result = message
            return None
        # A result whose call is not on the branch: shown on its own.
        call = ToolCall(id=message.tool_call_id, name=message.tool_name)
        return ReplyBlock([ToolBlock(call, message)], "", "toolUse", None, message.timestamp)
    if isinstance(message, BashExecutionMessage):
        return BashBlock(message)
    if isinstance(message, CustomMessage) and message.display:
        return CustomBlock(message.custom_type, _text(message.content), _images(message.content))
    return None


def _entry(entry: SessionEntry, walk: _Walk) -> Block | None:
    if isinstance(entry, MessageEntry):
        return _message(entry.message, walk)
    if isinstance(entry, CustomMessageEntry) and entry.display:
        return CustomBlock(entry.custom_type, _text(entry.content), _images(entry.content))
    if isinstance(entry, CompactionEntry):
        return CompactionBlock(entry.summary, entry.tokens_before)
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryBlock(entry.summary)
    if isinstance(entry, ModelChangeEntry):
        return NoteBlock(f"Model: {entry.provider}/{entry.model_id}")
    if isinstance(entry, ThinkingLevelChangeEntry):
        return NoteBlock(f"Thinking level: {entry.thinking_level}")
    return None


def branch_blocks(entries: list[SessionEntry]) -> list[Block]:
    """The blocks of a branch given as its entries, root first."""
    walk = _Walk()
    for entry in entries:
        block = _entry(entry, walk)
        if block is not None:
            walk.blocks.append(block)
    return walk.blocks
