"""Ctrl+F: search every message of the branch, mounted or not, with count and highlights."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widgets import Input, Static

from pitui.ui.app import PituiApp
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.search_bar import SearchBar
from tests.ui.command_support import (
    make_app,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
)
from tests.ui.conversation_support import long_session_file, session_on

SPECIAL = {3: "the zebra crossing", 100: "a zebra again", 140: "last ZEBRA here"}


def _count(app: PituiApp) -> str:
    return str(app.main.query_one("#search-count", Static).render())


def _user_item(app: PituiApp, turn: int) -> str:
    return app.chat.items[2 * turn].id


def _current(app: PituiApp) -> str | None:
    bar = app.main.query_one(SearchBar)
    return bar.match.item_id if bar.match else None


async def _open(tmp: Path) -> PituiApp:
    path = await long_session_file(tmp, 150, SPECIAL)
    return make_app(await session_on(tmp, path))


async def test_search_counts_highlights_and_walks_unmounted_matches(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        conversation = app.main.conversation
        assert conversation.widget_for(_user_item(app, 3)) is None  # not mounted
        await pilot.press("ctrl+f")
        await pilot.press(*"zebra")
        await settle(pilot)
        assert _count(app) == "3/3" and _current(app) == _user_item(app, 140)
        widget = conversation.widget_for(_user_item(app, 140))
        assert widget is not None and widget.has_class("-search-current")
        content = widget.render()
        assert isinstance(content, Content)
        assert [content.plain[s.start : s.end] for s in content.spans] == ["ZEBRA"]
        await pilot.press("shift+enter")
        await settle(pilot)
        assert _count(app) == "2/3" and _current(app) == _user_item(app, 100)
        await pilot.press("shift+f3")
        await settle(pilot)
        assert _count(app) == "1/3" and _current(app) == _user_item(app, 3)
        far = conversation.widget_for(_user_item(app, 3))
        assert far is not None and far.has_class("-search-current")  # mounted to be seen
        assert conversation.scroll_y < conversation.max_scroll_y  # scrolled up to it
        await pilot.press("enter")
        await settle(pilot)
        assert _count(app) == "2/3"
        await pilot.press("f3", "f3")
        await settle(pilot)
        assert _count(app) == "1/3"  # wrapped around
        await pilot.press("escape")
        await settle(pilot)
        assert not app.main.query_one(SearchBar).display
        assert isinstance(app.focused, Composer)
        assert not any(w.has_class("-search-current") for w in conversation._widgets.values())


async def test_no_match_and_a_cleared_query(tmp_path: Path) -> None:
    app = await _open(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *"okapi")
        await settle(pilot)
        assert _count(app) == "no matches"
        field = app.main.query_one("#search-input", Input)
        field.value = ""
        await settle(pilot)
        assert _count(app) == "" and app.main.query_one(SearchBar).match is None
        await pilot.press(*"answer 149")
        await settle(pilot)
        assert _count(app) == "1/1"
