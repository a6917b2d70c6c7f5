"""The view of a finished transcript (a resumed session), built in one pass.

The reducer (:mod:`pitui.ui.view.reducer`) makes a new immutable ChatState for every event:
right for a stream, where one token changes one item and the app diffs the old state
against the new. Replaying a resumed session through it cost ~35 µs a message: several
ChatState copies per message, and a copy of the whole id index per added item, which
grows with the square of the transcript's length. Here the items of finished messages
go into a plain list and dict, and the ChatState is made once, at the end.

The result is the state the reducer reaches from ``message_start`` and ``message_end``
of each message in order (``tests/ui/test_replay.py`` checks this on generated
transcripts): a change to how the reducer shows a finished message belongs here too.
"""

from __future__ import annotations

from collections.abc import Iterable

from pitui.agent.messages import AgentMessage
from pitui.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
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
    UserItem,
    tool_item_id,
)


def state_from_messages(messages: Iterable[AgentMessage]) -> ChatState:
    """The view of a finished transcript (e.g. a resumed session)."""
    replay = _Replay()
    for message in messages:
        replay.message(message)
    return replay.state()


class _Replay:
    """A ChatState under construction, mutable because nobody sees it before the end."""

    __slots__ = ("index", "items", "last_timestamp", "open_tools", "seq", "usage")

    def __init__(self) -> None:
        self.items: list[ChatItem] = []
        self.index: dict[str, int] = {}
        self.seq = 0
        self.open_tools: set[str] = set()
        self.usage = UsageTotals()
        self.last_timestamp: int | None = None

    def state(self) -> ChatState:
        return ChatState(
            items=PVector(self.items),
            index=self.index,
            seq=self.seq,
            open_tools=frozenset(self.open_tools),
            usage=self.usage,
            last_assistant_timestamp=self.last_timestamp,
        )

    def message(self, message: AgentMessage) -> None:
        if isinstance(message, AssistantMessage):
            self._assistant(message)
        elif isinstance(message, UserMessage):
            # No steering or follow-up text is queued in a rebuilt view: nothing to dequeue.
            text, images = items.user_text(message.content)
            self._put(UserItem(self._next_id(), text, images))
        elif isinstance(message, ToolResultMessage):
            self._tool_result(message)
        else:
            self._custom(message)

    def _next_id(self) -> str:
        self.seq += 1
        return f"m{self.seq}"

    def _put(self, item: ChatItem) -> None:
        """Replace the item with the same id in place, or append it."""
        position = self.index.get(item.id)
        if position is None:
            self.index[item.id] = len(self.items)
            self.items.append(item)
        else:
            self.items[position] = item

    def _card(self, tool_call_id: str) -> ToolCardItem | None:
        position = self.index.get(tool_item_id(tool_call_id))
        item = None if position is None else self.items[position]
        return item if isinstance(item, ToolCardItem) else None

    def _assistant(self, message: AssistantMessage) -> None:
        mid = self._next_id()
        for index, block in enumerate(message.content):
            # Blank text and thinking blocks are not shown (pi).
            if isinstance(block, TextContent):
                if block.text.strip():
                    self._put(AssistantItem(f"{mid}.{index}", mid, block.text, streaming=False))
            elif isinstance(block, ThinkingContent):
                if block.thinking.strip():
                    self._put(ThinkingItem(f"{mid}.{index}", mid, block.thinking, streaming=False))
            elif isinstance(block, ToolCall):
                self._call(mid, block)
        self.usage = self.usage.plus(message)
        self.last_timestamp = message.timestamp
        if message.stop_reason in ("aborted", "error"):
            self._failed(mid, message)

    def _call(self, mid: str, call: ToolCall) -> None:
        card = self._card(call.id)
        if card is None:
            args = dict(call.arguments)
            card = ToolCardItem(tool_item_id(call.id), call.id, call.name, args, mid)
            self.open_tools.add(call.id)
        elif card.state in ("pending", "running"):  # a repeated id whose call never finished
            card = replace(card, args=dict(call.arguments), message_id=card.message_id or mid)
        if not card.args_complete:
            card = replace(card, args_complete=True)
        self._put(card)

    def _failed(self, mid: str, message: AssistantMessage) -> None:
        """An aborted or failed reply: open cards end with the error, else a notice says it."""
        aborted = message.stop_reason == "aborted"
        error_text = (items.ABORTED_TEXT if aborted else message.error_message) or "Error"
        for call_id in sorted(self.open_tools):
            card = self._card(call_id)
            if card is not None and card.state not in TOOL_DONE_STATES:
                self._put(replace(card, state="error", output=error_text))
        self.open_tools.clear()
        if not message.tool_calls():
            line = items.ABORTED_TEXT if aborted else items.error_line(message)
            self._put(NoticeItem(f"{mid}.end", line, "error"))

    def _tool_result(self, message: ToolResultMessage) -> None:
        call_id = message.tool_call_id
        card = self._card(call_id)
        if card is not None and card.state in TOOL_DONE_STATES:
            return
        if card is None:  # a result whose call we never saw (e.g. a trimmed transcript)
            card = ToolCardItem(tool_item_id(call_id), call_id, message.tool_name, {})
        card = replace(
            card,
            state=items.result_state(message),
            output=items.blocks_text(message.content),
            details=message.details,
            args_complete=True,
        )
        self._put(card)
        self.open_tools.discard(call_id)

    def _custom(self, message: AgentMessage) -> None:
        # Unlike the live reducer, no ``!`` command is running here to be ended by its
        # bashExecution message: every message becomes an item of its own.
        data = message.model_dump(mode="json", by_alias=True)
        builder = items.CUSTOM_BUILDERS.get(str(data.get("role")))
        if builder is None:
            return
        item = builder(self._next_id(), data)
        if item is not None:
            self._put(item)
