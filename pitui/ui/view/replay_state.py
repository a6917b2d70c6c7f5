"""The one-pass builder of a finished transcript's view, fed message by message.

Two readers feed it: :func:`pitui.ui.view.replay.state_from_messages` (typed messages: a
session once loaded) and :func:`pitui.ui.view.replay_json.state_from_json` (message JSON:
the last messages of a session being resumed, shown before its file is loaded). The
builder takes plain values, so both get the same items and no model is needed here.

The result is the state the reducer reaches from ``message_start`` and ``message_end``
of each message in order (``tests/ui/test_replay.py`` checks this on generated
transcripts): a change to how the reducer shows a finished message belongs here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pitui.core.usage import UsageTotals
from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.evolve import replace
from pitui.ui.view.pvector import PVector
from pitui.ui.view.state import (
    TOOL_DONE_STATES,
    AssistantItem,
    ChatItem,
    NoticeItem,
    ThinkingItem,
    ToolCardItem,
    ToolState,
    UserItem,
    tool_item_id,
)


class Replay:
    """A ChatState under construction, mutable because nobody sees it before the end."""

    __slots__ = (
        "conflict", "floor", "index", "items", "last_timestamp", "open_tools", "seq", "usage"
    )  # fmt: skip

    def __init__(self) -> None:
        self.items: list[ChatItem] = []
        self.index: dict[str, int] = {}
        self.seq = 0
        self.open_tools: set[str] = set()
        self.usage = UsageTotals()
        self.last_timestamp: int | None = None
        self.floor = 0
        """Items below this were taken from an earlier replay (:mod:`replay_memo`)."""
        self.conflict = False
        """A message changed one of those items (a repeated tool-call id): the taken
        items are not what this transcript alone makes."""

    def state(self) -> ChatState:
        return ChatState(
            items=PVector(self.items),
            index=self.index,
            seq=self.seq,
            open_tools=frozenset(self.open_tools),
            usage=self.usage,
            last_assistant_timestamp=self.last_timestamp,
        )

    def next_id(self) -> str:
        """The id of the next message (``m<seq>``)."""
        self.seq += 1
        return f"m{self.seq}"

    def _put(self, item: ChatItem) -> None:
        """Replace the item with the same id in place, or append it."""
        position = self.index.get(item.id)
        if position is None:
            self.index[item.id] = len(self.items)
            self.items.append(item)
        else:
            self.conflict = self.conflict or position < self.floor
            self.items[position] = item

    def _card(self, tool_call_id: str) -> ToolCardItem | None:
        position = self.index.get(tool_item_id(tool_call_id))
        item = None if position is None else self.items[position]
        return item if isinstance(item, ToolCardItem) else None

    # ------------------------------------------------------------------ messages

    def user(self, text: str, images: int) -> None:
        # No steering or follow-up text is queued in a rebuilt view: nothing to dequeue.
        self._put(UserItem(self.next_id(), text, images))

    def text(self, mid: str, index: int, text: str) -> None:
        """A text block of assistant message ``mid`` (blank ones are not shown, as pi)."""
        if text.strip():
            self._put(AssistantItem(f"{mid}.{index}", mid, text, streaming=False))

    def thinking(self, mid: str, index: int, text: str) -> None:
        """A thinking block of assistant message ``mid`` (blank ones are not shown)."""
        if text.strip():
            self._put(ThinkingItem(f"{mid}.{index}", mid, text, streaming=False))

    def call(self, mid: str, call_id: str, name: str, arguments: Mapping[str, Any]) -> None:
        """A tool call of assistant message ``mid``."""
        card = self._card(call_id)
        # A finished message's arguments: the card holds that dict itself, not a copy (a
        # provider replaces a call's arguments, never changes them in place; the reducer,
        # fed while they stream, copies).
        args = arguments if type(arguments) is dict else dict(arguments)
        if card is None:
            card = ToolCardItem(tool_item_id(call_id), call_id, name, args, mid)
            self.open_tools.add(call_id)
        elif card.state in ("pending", "running"):  # a repeated id whose call never finished
            card = replace(card, args=args, message_id=card.message_id or mid)
        if not card.args_complete:
            card = replace(card, args_complete=True)
        self._put(card)

    def assistant_end(
        self,
        mid: str,
        usage: UsageTotals,
        timestamp: int,
        stop_reason: str,
        error_message: str | None,
        has_calls: bool,
    ) -> None:
        """After the blocks of assistant message ``mid``: ``usage`` is the new totals."""
        self.usage = usage
        self.last_timestamp = timestamp
        if stop_reason in ("aborted", "error"):
            self._failed(mid, stop_reason == "aborted", error_message, has_calls)

    def _failed(self, mid: str, aborted: bool, error_message: str | None, has_calls: bool) -> None:
        """An aborted or failed reply: open cards end with the error, else a notice says it."""
        error_text = (items.ABORTED_TEXT if aborted else error_message) or "Error"
        for call_id in sorted(self.open_tools):
            card = self._card(call_id)
            if card is not None and card.state not in TOOL_DONE_STATES:
                self._put(replace(card, state="error", output=error_text))
        self.open_tools.clear()
        if not has_calls:
            line = items.ABORTED_TEXT if aborted else items.error_text(error_message)
            self._put(NoticeItem(f"{mid}.end", line, "error"))

    def tool_result(
        self, call_id: str, tool_name: str, state: ToolState, output: str, details: Any
    ) -> None:
        card = self._card(call_id)
        if card is not None and card.state in TOOL_DONE_STATES:
            return
        if card is None:  # a result whose call we never saw (e.g. a trimmed transcript)
            card = ToolCardItem(tool_item_id(call_id), call_id, tool_name, {})
        card = replace(card, state=state, output=output, details=details, args_complete=True)
        self._put(card)
        self.open_tools.discard(call_id)

    def custom(self, data: dict[str, Any]) -> None:
        """A coding-agent message (bash, custom, summaries), from its JSON."""
        # Unlike the live reducer, no ``!`` command is running here to be ended by its
        # bashExecution message: every message becomes an item of its own.
        builder = items.CUSTOM_BUILDERS.get(str(data.get("role")))
        if builder is None:
            return
        item = builder(self.next_id(), data)
        if item is not None:
            self._put(item)
