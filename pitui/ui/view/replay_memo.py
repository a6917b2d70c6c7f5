"""The last transcript replayed, so that the next replays only what it does not share.

A sibling switch or a navigation replaces the transcript with another that shares every
message up to the branch point (the same message objects, the session's entries being
typed once; summaries, made anew by each context, are compared by value).
:func:`~pitui.ui.view.replay.state_from_messages` given a :class:`ReplayMemo`
takes the builder's state before the last user message of that shared prefix from the
memo and replays the rest; the result is the state a full replay makes (a message that
would change a taken item, a repeated tool-call id, makes it replay everything).

The memo keeps the builder's counters before each user message, and the cards of the
calls open there (almost always none): later messages change no other item made before
it. A message that changes an item taken from the memo (a repeated call id) makes the
builder replay everything.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from pitui.ui.view.state import tool_item_id

if TYPE_CHECKING:
    from pitui.agent.messages import AgentMessage
    from pitui.core.usage import UsageTotals
    from pitui.ui.view.replay_state import Replay
    from pitui.ui.view.state import ChatItem


def _same(old: AgentMessage, new: AgentMessage) -> bool:
    """The same message: the same object (an entry's, typed once), or an equal one (a
    summary the context makes anew each time)."""
    return old is new or (type(old) is type(new) and old == new)


class Mark(NamedTuple):
    """The builder's state before the user message at ``message``."""

    message: int
    items: int
    seq: int
    usage: UsageTotals
    last_timestamp: int | None
    open_cards: tuple[tuple[str, int | None, ChatItem | None], ...]
    """(call id, position, card) of each call open there: the only items made before the
    mark that later messages change (a result, a failed reply), so kept as they were."""


class _Replayed:
    """One transcript replayed: its messages, the items and index made, its marks."""

    __slots__ = ("index", "items", "marks", "messages")

    def __init__(self) -> None:
        self.messages: list[AgentMessage] = []
        self.items: list[ChatItem] = []
        self.index: dict[str, int] = {}
        self.marks: list[Mark] = []

    def shared(self, messages: Sequence[AgentMessage]) -> int:
        """How many messages ``messages`` starts with that this transcript starts with."""
        old = self.messages
        count, most = 0, min(len(old), len(messages))
        while count < most and _same(old[count], messages[count]):
            count += 1
        return count


class ReplayMemo:
    """The last :data:`KEPT` transcripts replayed (Alt+← / Alt+→ goes back and forth
    between two branches, whose contexts may share nothing when a compaction came after
    the branch point on one of them), and the one being replayed."""

    KEPT = 2
    __slots__ = ("_building", "_kept")

    def __init__(self) -> None:
        self._kept: list[_Replayed] = []
        self._building = _Replayed()

    def resume(self, replay: Replay, messages: Sequence[AgentMessage]) -> int:
        """Start replaying ``messages``: put into ``replay`` (a new one) the state before
        the latest mark a kept transcript shares with them; returns the message to
        replay from (0: all)."""
        self._building = building = _Replayed()
        best: tuple[_Replayed, int] | None = None
        for kept in self._kept:
            shared = kept.shared(messages)
            at = bisect_right([m.message for m in kept.marks], shared) - 1
            if at >= 0 and (
                best is None or kept.marks[at].message > best[0].marks[best[1]].message
            ):
                best = (kept, at)
        if best is None:
            return 0
        kept, at = best
        mark = kept.marks[at]
        building.marks = kept.marks[:at]  # the shared part's; the replay marks the rest
        replay.items = kept.items[: mark.items]
        index = dict(kept.index)
        for item in kept.items[mark.items :]:
            if index.get(item.id, -1) >= mark.items:
                del index[item.id]
        replay.index, replay.seq, replay.floor = index, mark.seq, mark.items
        replay.usage, replay.last_timestamp = mark.usage, mark.last_timestamp
        for call_id, position, card in mark.open_cards:
            if position is not None and card is not None:
                replay.items[position] = card
            replay.open_tools.add(call_id)
        return mark.message

    def start_over(self) -> None:
        """The replay starts again from the first message (nothing taken)."""
        self._building = _Replayed()

    def mark(self, replay: Replay, message: int) -> None:
        """Before the user message at ``message``: a point a later replay may resume at."""
        cards: tuple[tuple[str, int | None, ChatItem | None], ...] = ()
        if replay.open_tools:
            index, items = replay.index, replay.items
            positions = [(c, index.get(tool_item_id(c))) for c in sorted(replay.open_tools)]
            cards = tuple((c, p, items[p] if p is not None else None) for c, p in positions)
        counters = (len(replay.items), replay.seq, replay.usage, replay.last_timestamp)
        self._building.marks.append(Mark(message, *counters, cards))

    def keep(self, messages: Sequence[AgentMessage], replay: Replay) -> None:
        """What was replayed (a copy of the list: the caller's may change in place), in
        place of a kept copy of the same transcript."""
        done = self._building
        done.messages, done.items, done.index = list(messages), replay.items, replay.index
        others = [
            k
            for k in self._kept
            if not (len(k.messages) == len(done.messages) == k.shared(done.messages))
        ]
        self._kept = [done, *others][: self.KEPT]
