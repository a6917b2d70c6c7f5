"""The last transcript replayed, so that the next replays only what it does not share.

A sibling switch or a navigation replaces the transcript with another that shares every
message up to the branch point (the same message objects: the session's entries are
typed once). :func:`~pitui.ui.view.replay.state_from_messages` given a :class:`ReplayMemo`
takes the builder's state before the last user message of that shared prefix from the
memo and replays the rest; the result is the state a full replay makes (a message that
would change a taken item, a repeated tool-call id, makes it replay everything).

The memo keeps the builder's counters before each user message that starts with no tool
call open (a later message cannot change an item made before such a point): five values
per user message.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pitui.agent.messages import AgentMessage
    from pitui.core.usage import UsageTotals
    from pitui.ui.view.replay_state import Replay
    from pitui.ui.view.state import ChatItem


class Mark(NamedTuple):
    """The builder's state before the user message at ``message``."""

    message: int
    items: int
    seq: int
    usage: UsageTotals
    last_timestamp: int | None


class ReplayMemo:
    """The messages last replayed, the items and index made, and the marks."""

    __slots__ = ("index", "items", "marks", "messages")

    def __init__(self) -> None:
        self.messages: list[AgentMessage] = []
        self.items: list[ChatItem] = []
        self.index: dict[str, int] = {}
        self.marks: list[Mark] = []

    def resume(self, replay: Replay, messages: Sequence[AgentMessage]) -> int:
        """Put into ``replay`` (a new one) the state before the last mark that
        ``messages`` shares with the memo; returns the message to replay from."""
        old = self.messages
        shared, most = 0, min(len(old), len(messages))
        while shared < most and old[shared] is messages[shared]:
            shared += 1
        at = bisect_right([m.message for m in self.marks], shared) - 1
        if at < 0:
            self.marks = []
            return 0
        mark = self.marks[at]
        del self.marks[at:]  # the shared part's stay; the replay marks the rest again
        replay.items = self.items[: mark.items]
        index = dict(self.index)
        for item in self.items[mark.items :]:
            if index.get(item.id, -1) >= mark.items:
                del index[item.id]
        replay.index, replay.seq, replay.floor = index, mark.seq, mark.items
        replay.usage, replay.last_timestamp = mark.usage, mark.last_timestamp
        return mark.message

    def mark(self, replay: Replay, message: int) -> None:
        """Before the user message at ``message``: a point a later replay may resume at."""
        if not replay.open_tools:
            self.marks.append(
                Mark(message, len(replay.items), replay.seq, replay.usage, replay.last_timestamp)
            )

    def keep(self, messages: Sequence[AgentMessage], replay: Replay) -> None:
        """What was replayed (a copy of the list: the caller's may change in place)."""
        self.messages, self.items, self.index = list(messages), replay.items, replay.index
