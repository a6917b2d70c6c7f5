"""ChatState: the view model's container, without the item classes.

Split from :mod:`pitui.ui.view.state` (which re-exports both) so that drawing the first, empty
screen does not create the dozen item dataclasses: Python builds each dataclass's methods
from source at import time, and together they cost several milliseconds of cold start.
Item classes are looked up only when a state actually holds items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING

from pitui.core.usage import UsageTotals
from pitui.records import Record
from pitui.ui.view.pvector import PVector

if TYPE_CHECKING:
    from pitui.ui.view.state import ChatItem, ToolCardItem


class ChatState(Record):
    """Everything the chat view shows, in order, plus the live bits around it."""

    items: PVector[ChatItem] = field(default_factory=PVector)
    index: Mapping[str, int] = field(default_factory=dict)
    """Item id → position in ``items``; copied only when an item is added."""
    seq: int = 0
    streaming_id: str | None = None
    """Message id (``m<seq>``) of the assistant message being streamed."""
    open_tools: frozenset[str] = frozenset()
    """Tool-call ids whose cards are not finished yet."""
    busy: bool = False
    activity: str | None = None
    """The transient working line (``Working...``, retry and compaction waits)."""
    bash_id: str | None = None
    """Item id of the running user ``!`` command, if any."""
    steering: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()
    usage: UsageTotals = field(default_factory=UsageTotals)
    last_assistant_timestamp: int | None = None
    thinking_expanded: bool = False
    tools_expanded: bool = False

    def get(self, item_id: str) -> ChatItem | None:
        """The item with ``item_id``, if present."""
        pos = self.index.get(item_id)
        return None if pos is None else self.items[pos]

    def tool_card(self, tool_call_id: str) -> ToolCardItem | None:
        """The card of a tool call, by the call's id."""
        from pitui.ui.view.state import ToolCardItem, tool_item_id  # a state with items: loaded

        item = self.get(tool_item_id(tool_call_id))
        return item if isinstance(item, ToolCardItem) else None

    def tool_cards(self) -> list[ToolCardItem]:
        """All tool cards, oldest first."""
        from pitui.ui.view.state import ToolCardItem

        return [i for i in self.items if isinstance(i, ToolCardItem)]
