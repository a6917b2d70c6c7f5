"""Ctrl+F: find in the conversation, across every message of the branch (mounted or not).

Typing searches as you type (the most recent match first); Enter / F3 / ↓ go to the next
match, Shift+Enter / Shift+F3 / ↑ to the previous one, wrapping around; Esc closes. The
count reads ``3/17``. The search itself is :class:`~pitui.ui.view.search.SearchIndex`;
this bar feeds it the query and the conversation shows the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from pitui.ui.widgets.search_marks import search_pattern

if TYPE_CHECKING:
    from pitui.ui.view.search import Match, SearchIndex
    from pitui.ui.widgets.conversation import ConversationView

NEXT_KEYS = frozenset({"enter", "f3", "down"})
PREVIOUS_KEYS = frozenset({"shift+enter", "shift+f3", "up"})


class SearchBar(Horizontal):
    """The find bar under the conversation."""

    DEFAULT_CSS = """
    SearchBar {
        dock: bottom;
        height: 1;
        margin: 0 1 1 1;
        background: $pi-selectedBg;
    }
    SearchBar > #search-label { width: auto; padding: 0 1; color: $pi-accent; }
    SearchBar > #search-input {
        width: 1fr; height: 1; border: none; padding: 0; background: $pi-selectedBg;
    }
    SearchBar > #search-count { width: 14; padding: 0 1; color: $pi-muted; text-align: right; }
    SearchBar > #search-count.-none { color: $pi-warning; }
    """

    class Closed(Message):
        """Esc: the search is over (the screen puts the focus back)."""

        def __init__(self, bar: SearchBar) -> None:
            super().__init__()
            self.bar = bar

    def __init__(self, conversation: ConversationView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.conversation = conversation
        self.match: Match | None = None
        self.search_from: str | None = None
        """The item a new query searches upwards from (None: the end)."""
        self._index: SearchIndex | None = None

    def compose(self) -> ComposeResult:
        yield Static("Find", id="search-label")
        yield Input(placeholder="in the conversation", id="search-input")
        yield Static("", id="search-count")

    @property
    def query_text(self) -> str:
        """What is being searched for."""
        return self.query_one(Input).value

    @property
    def index(self) -> SearchIndex:
        """The search over the conversation's state (built on first use)."""
        if self._index is None:
            from pitui.ui.view.search import SearchIndex

            self._index = SearchIndex()
        return self._index

    def open(self, anchor: str | None = None) -> None:
        """Show the bar and take the keys; a query left from before is searched again,
        upwards from ``anchor`` (an item id; None: the end)."""
        self.search_from = anchor
        self.display = True
        field = self.query_one(Input)
        self.screen.set_focus(field)  # now, not deferred: the next key of a burst is typed here
        field.select_all()
        if self.query_text:
            self.call_later(self.search, self.query_text)

    async def close(self) -> None:
        """Hide the bar and take the highlights away."""
        self.display = False
        self.match = None
        await self.conversation.show_search(None, None)
        self.post_message(self.Closed(self))

    async def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        await self.search(event.value)

    async def search(self, query: str) -> None:
        """Search for ``query`` upwards from the anchor (or the end)."""
        if not query:
            self.match = None
            self._show_count("")
            await self.conversation.show_search(None, None)
            return
        state = self.conversation.state
        self.match = self.index.last_before(state, query, self.search_from)
        await self._show(query)

    async def step(self, delta: int) -> None:
        """The next (1) or previous (-1) match."""
        query = self.query_text
        if not query:
            return
        state = self.conversation.state
        self.match = self.index.step(state, query, self.match, delta)
        await self._show(query)

    async def _show(self, query: str) -> None:
        match = self.match
        self._show_count(match.label if match else "no matches")
        await self.conversation.show_search(search_pattern(query), match)
        if match is not None:
            self.conversation.expand_for_match(match.item_id)

    def _show_count(self, text: str) -> None:
        count = self.query_one("#search-count", Static)
        count.update(text, layout=False)  # a fixed width: no layout per keystroke
        count.set_class(text == "no matches", "-none")

    async def on_key(self, event: events.Key) -> None:
        key = event.key
        if key in NEXT_KEYS or key in PREVIOUS_KEYS:
            event.stop()
            event.prevent_default()
            await self.step(1 if key in NEXT_KEYS else -1)
        elif key == "escape":
            event.stop()
            event.prevent_default()
            await self.close()
