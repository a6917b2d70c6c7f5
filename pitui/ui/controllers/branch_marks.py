"""Which conversation items carry the path's ``‹ i/n ›`` branch switches.

The switches are asked of the session's tree per message of the active path (entry id,
``i``, ``n``); the conversation shows the messages in context, in the same order, with
ids of its own. They pair up from the end (the path goes on above the context after a
compaction). A user message is one item; an assistant reply is several (thinking, text
blocks, tool calls, the line of its error): its switch goes on its first text block.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.state import AssistantItem, NoticeItem, ThinkingItem, ToolCardItem, UserItem

Switch = tuple[str, int, int]
"""``(entry id, i, n)``: the message is the i-th of n sibling branches."""


def _reply_key(item: Any) -> str | None:
    """The assistant message an item belongs to (``m<seq>``), if it is part of one."""
    if isinstance(item, AssistantItem | ThinkingItem):
        return item.message_id
    if isinstance(item, ToolCardItem):
        return item.message_id
    if isinstance(item, NoticeItem) and item.id.endswith(".end"):
        return item.id.removesuffix(".end")
    return None


def _first_texts(chat: ChatState) -> list[str | None]:
    """Per assistant message shown, in order: the id of its first text block (None: it
    has none)."""
    first: dict[str, str | None] = {}
    for item in chat.items:
        key = _reply_key(item)
        if key is None:
            continue
        if isinstance(item, AssistantItem) and first.get(key) is None:
            first[key] = item.id
        else:
            first.setdefault(key, None)
    return list(first.values())


def _pair(items: Sequence[str | None], path: Sequence[Switch]) -> dict[str, Switch]:
    return {
        item: switch
        for item, switch in zip(reversed(items), reversed(path), strict=False)
        if item is not None
    }


def item_switches(
    chat: ChatState,
    roles: Iterable[str | None],
    users: Sequence[Switch],
    replies: Sequence[Switch],
) -> dict[str, Switch]:
    """Conversation item id → its message's switch. ``roles``: the context's messages'
    roles; ``users`` / ``replies``: the path's user messages' and assistant replies'
    switches. Replies are paired only when the conversation shows every reply of the
    context (a reply it could not tell apart must not carry another's switch)."""
    counts = {"user": 0, "assistant": 0}
    for role in roles:
        if role in counts:
            counts[role] += 1
    # A user message shown but not ended yet has no entry: leave it out.
    user_items = [i.id for i in chat.items if isinstance(i, UserItem)][: counts["user"]]
    found = _pair(user_items, users)
    texts = _first_texts(chat)
    if len(texts) == counts["assistant"]:
        found.update(_pair(texts, replies))
    return found
