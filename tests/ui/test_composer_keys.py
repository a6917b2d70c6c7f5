"""The composer applies keys in the order typed, and typing on a pane lands in it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ui.widgets.composer import Composer
from tests.ui.harness import FeedSource, burst, make_app, wait_subscribed

BURSTS = [
    # keys, text, cursor (row, column)
    (["a", "b", "c", "backspace", "d", "e", "f"], "abdef", (0, 5)),
    (["a", "b", "c", "left", "X"], "abXc", (0, 3)),
    (["a", "b", "c", "home", "X", "end", "Y"], "XabcY", (0, 5)),
    (["o", "n", "e", " ", "t", "w", "o", "ctrl+w", "3"], "one 3", (0, 5)),
    (["a", "b", "left", "left", "delete", "Z"], "Zb", (0, 1)),
    (["a", "shift+enter", "b", "up", "c"], "ac\nb", (0, 2)),
]


async def _typed(keys: list[str]) -> Composer:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        composer = app.query_one(Composer)
        burst(app, *keys)
        for _ in range(3):
            await pilot.pause()
        return composer


@pytest.mark.parametrize(("keys", "text", "cursor"), BURSTS)
async def test_a_burst_is_applied_in_the_order_typed(
    keys: list[str], text: str, cursor: tuple[int, int]
) -> None:
    composer = await _typed(keys)
    assert composer.text == text
    assert composer.cursor_location == cursor


@settings(max_examples=15)  # each example starts an app
@given(st.lists(st.sampled_from(["a", "b", "backspace", "left", "right"]), max_size=12))
async def test_any_burst_equals_the_same_keys_one_at_a_time(keys: list[str]) -> None:
    text, column = "", 0
    for key in keys:  # what a text field does with each key, in order
        if key == "backspace":
            text, column = text[: max(column - 1, 0)] + text[column:], max(column - 1, 0)
        elif key == "left":
            column = max(column - 1, 0)
        elif key == "right":
            column = min(column + 1, len(text))
        else:
            text, column = text[:column] + key + text[column:], column + 1
    composer = await _typed(keys)
    assert (composer.text, composer.cursor_location) == (text, (0, column))


@pytest.mark.parametrize("pane", ["#tools", "#conversation"])
async def test_typing_with_a_pane_focused_goes_to_the_composer(pane: str) -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_subscribed(pilot, source)
        await pilot.pause()
        await pilot.click(pane)  # as a user puts focus there
        await pilot.pause()
        assert app.focused is app.query_one(pane)
        burst(app, *"fix the port", "backspace", "!")
        for _ in range(3):
            await pilot.pause()
        composer = app.query_one(Composer)
        assert composer.text == "fix the por!"
        assert app.focused is composer


async def test_keys_do_not_query_the_screen_for_the_suggestion_list() -> None:
    """The autocomplete list is looked up once, not on every key and every change (a
    query walks the whole screen: with a long conversation mounted, the echo waits)."""
    from pitui.ui.widgets.suggestions import SuggestionList

    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        burst(app, "a")
        await pilot.pause()
        screen = app.screen
        queried: list[object] = []
        query = screen.query

        def counted(selector: object = None) -> object:
            queried.append(selector)
            return query(selector)  # type: ignore[call-overload]

        screen.query = counted  # type: ignore[assignment,method-assign]
        burst(app, "b", "c", "/")
        for _ in range(3):
            await pilot.pause()
        composer = app.query_one(Composer)
        assert composer.text == "abc/"
        assert SuggestionList not in queried
