"""Keyboard selection in the conversation: where ↑/↓ go, and what keys do to an item.

Pure view-model logic over a :class:`~pitui.ui.view.chat_state.ChatState` (no Textual):
↑/↓ step between items in conversation order, whether or not their widgets are mounted
(the pane mounts a window of them); Enter folds what can fold; ``c`` copies an item's raw
text or markdown, ``C`` the last fenced code block of it; ``t`` names the tool card of a
tool reference or of the reply that made the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from pitui.core.tool_titles import tool_title_text
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.state import (
    ApprovalItem,
    AssistantItem,
    BashItem,
    BranchSummaryItem,
    ChatItem,
    CompactionItem,
    CustomItem,
    NoticeItem,
    ProgressItem,
    ThinkingItem,
    ToolCardItem,
    UserItem,
)
from pitui.ui.view.ui_handlers import FOLDABLE

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


def step(state: ChatState, current: str | None, delta: int) -> str | None:
    """The item ``delta`` places after ``current`` (clamped to the ends).

    Without a current item (or one no longer in the state), ↑ and ↓ start at the last item.
    """
    count = len(state.items)
    if not count:
        return None
    position = state.index.get(current) if current is not None else None
    if position is None:
        return state.items[count - 1].id
    return state.items[min(max(position + delta, 0), count - 1)].id


def is_foldable(item: ChatItem | None) -> bool:
    """Whether Enter folds or unfolds ``item``."""
    return isinstance(item, FOLDABLE)


@dataclass(frozen=True, slots=True)
class Copied:
    """What ``c`` / ``C`` copy and how the notice names it."""

    text: str
    what: str


_KIND_NAMES: dict[type, str] = {
    UserItem: "your message",
    AssistantItem: "reply (markdown)",
    ThinkingItem: "thinking",
    ToolCardItem: "tool output",
    BashItem: "command and output",
    CustomItem: "custom message",
    CompactionItem: "compaction summary",
    BranchSummaryItem: "branch summary",
    NoticeItem: "notice",
    ApprovalItem: "approval request",
    ProgressItem: "progress line",
}


def item_text(item: ChatItem) -> str:
    """An item's raw text (markdown for a reply): what ``c`` copies and search reads."""
    if isinstance(item, UserItem | AssistantItem | ThinkingItem | NoticeItem):
        return item.text
    if isinstance(item, ToolCardItem):
        title = tool_title_text(item.tool_name, item.args, item.details)
        return f"{title}\n{item.output}" if item.output else title
    if isinstance(item, BashItem):
        return f"$ {item.command}\n{item.output}" if item.output else f"$ {item.command}"
    if isinstance(item, CustomItem):
        return item.text
    if isinstance(item, CompactionItem | BranchSummaryItem):
        return item.summary
    if isinstance(item, ApprovalItem):
        return tool_title_text(item.tool_name, item.args)
    if isinstance(item, ProgressItem):
        return f"{item.title}\n{item.outcome}" if item.outcome else item.title
    return ""


def copy_of(item: ChatItem) -> Copied:
    """What ``c`` copies of ``item``."""
    return Copied(item_text(item), _KIND_NAMES.get(type(item), "item"))


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def code_blocks(markdown: str) -> list[str]:
    """The fenced and indented code blocks of ``markdown``, in order."""
    tokens = _parser().parse(markdown)
    return [t.content for t in tokens if t.type in ("fence", "code_block")]


def last_code_block(item: ChatItem) -> Copied | None:
    """What ``C`` copies: the item's last code block (None when it has none)."""
    text = item.text if isinstance(item, AssistantItem | UserItem | CustomItem) else None
    if isinstance(item, CompactionItem | BranchSummaryItem):
        text = item.summary
    blocks = code_blocks(text) if text else []
    if not blocks:
        return None
    count = len(blocks)
    return Copied(blocks[-1], "last code block" if count == 1 else f"last of {count} code blocks")


def tool_card_of(state: ChatState, item: ChatItem | None) -> str | None:
    """The tool card ``t`` jumps to: a tool reference's own, or the first of a reply's."""
    if isinstance(item, ToolCardItem):
        return item.id
    message_id = item.message_id if isinstance(item, AssistantItem | ThinkingItem) else None
    if message_id is None:
        return None
    return next((c.id for c in state.tool_cards() if c.message_id == message_id), None)
