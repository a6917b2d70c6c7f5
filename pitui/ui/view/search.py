"""Ctrl+F search over every message of the current branch, mounted or not (pure, no Textual).

The conversation's items are kept as one lower-cased corpus (each item's text, separated
by a character no query can contain), so a keystroke costs a C-speed ``count`` and one
``find`` over it however long the session is, and a match maps to its item by bisection.
Each item's text is computed once per item version (items are immutable: a changed item
is a new object), so streaming tokens re-read only the item that changed.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.selection import item_text
from pitui.ui.view.state import ApprovalItem, ChatItem, NoticeItem, ProgressItem

SEPARATOR = "\x00"
"""Between items in the corpus: never in a query (queries are typed text)."""
_NOT_MESSAGES = (NoticeItem, ApprovalItem, ProgressItem)


@dataclass(frozen=True, slots=True)
class Match:
    """The current match: its item, which occurrence in that item, and ``k`` of ``total``."""

    item_id: str
    occurrence: int
    """0-based index of this match among the item's own matches."""
    number: int
    """1-based position among all matches (the ``3`` of ``3/17``)."""
    total: int
    offset: int
    """Where the match starts in the corpus (to step from it)."""

    @property
    def label(self) -> str:
        """``3/17``."""
        return f"{self.number}/{self.total}"


class _Corpus:
    __slots__ = ("ids", "positions", "starts", "text")

    def __init__(self, ids: list[str], starts: list[int], text: str) -> None:
        self.ids = ids
        self.positions = {item_id: index for index, item_id in enumerate(ids)}
        self.starts = starts
        self.text = text

    def item_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1


class SearchIndex:
    """The corpus of a chat state, rebuilt from cached per-item texts when items change."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[ChatItem, str]] = {}
        self._items: object = None
        self._corpus = _Corpus([], [], "")

    def corpus(self, state: ChatState) -> _Corpus:
        """The corpus of ``state`` (cached while its items are the same)."""
        if state.items is self._items:
            return self._corpus
        old = self._texts
        texts: dict[str, tuple[ChatItem, str]] = {}
        ids: list[str] = []
        parts: list[str] = []
        starts: list[int] = []
        offset = 0
        for item in state.items:
            if isinstance(item, _NOT_MESSAGES):
                continue
            cached = old.get(item.id)
            if cached is not None and cached[0] is item:
                text = cached[1]
            else:
                text = item_text(item).lower().replace(SEPARATOR, " ")
            texts[item.id] = (item, text)
            ids.append(item.id)
            starts.append(offset)
            parts.append(text)
            offset += len(text) + 1
        self._texts = texts
        self._items = state.items
        self._corpus = _Corpus(ids, starts, SEPARATOR.join(parts))
        return self._corpus

    def count(self, state: ChatState, query: str) -> int:
        """How many times ``query`` occurs (case-insensitively)."""
        needle = query.lower()
        return self.corpus(state).text.count(needle) if needle else 0

    def _match(self, corpus: _Corpus, needle: str, offset: int, total: int) -> Match:
        index = corpus.item_at(offset)
        start = corpus.starts[index]
        occurrence = corpus.text.count(needle, start, offset)
        number = corpus.text.count(needle, 0, offset) + 1
        return Match(corpus.ids[index], occurrence, number, total, offset)

    def last_before(self, state: ChatState, query: str, item_id: str | None = None) -> Match | None:
        """The last match in or above ``item_id`` (None: the end); wraps to the very last."""
        needle = query.lower()
        corpus = self.corpus(state)
        total = corpus.text.count(needle) if needle else 0
        if not total:
            return None
        end = len(corpus.text)
        if item_id is not None and item_id in state.index:
            end = self._end_of(corpus, state, item_id)
        offset = corpus.text.rfind(needle, 0, end)
        if offset < 0:
            offset = corpus.text.rfind(needle)
        return self._match(corpus, needle, offset, total)

    def _end_of(self, corpus: _Corpus, state: ChatState, item_id: str) -> int:
        """Where ``item_id``'s text ends in the corpus (a notice: where the next one starts)."""
        for position in range(state.index[item_id], len(state.items)):
            index = corpus.positions.get(state.items[position].id)
            if index is not None:
                if state.items[position].id == item_id:
                    return corpus.starts[index] + len(self._texts[item_id][1])
                return corpus.starts[index]
        return len(corpus.text)

    def step(self, state: ChatState, query: str, current: Match | None, delta: int) -> Match | None:
        """The next (``delta`` 1) or previous (-1) match from ``current``, wrapping around."""
        needle = query.lower()
        corpus = self.corpus(state)
        total = corpus.text.count(needle) if needle else 0
        if not total:
            return None
        if current is None:
            return self.last_before(state, query)
        text = corpus.text
        if delta > 0:
            # Past the whole match: matches do not overlap, as ``count`` counts them.
            offset = text.find(needle, current.offset + len(needle))
            offset = offset if offset >= 0 else text.find(needle)
        else:
            offset = text.rfind(needle, 0, max(current.offset, 0))
            offset = offset if offset >= 0 else text.rfind(needle)
        return self._match(corpus, needle, offset, total)
