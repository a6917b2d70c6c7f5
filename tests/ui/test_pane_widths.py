"""The conversation is the main pane (issue 22 item 8): at every width from 100 columns it
keeps 60 columns or more, whatever side panes show; Ctrl+B swaps the tree in for Tools
below 120 columns; hiding Tools (F2) gives its width to the tree."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from pitui.ui.app import PituiApp
from tests.ui.harness import FeedSource, make_app, settle
from tests.ui.script import demo_conversation

READABLE = 60
WIDTHS = (100, 119, 120, 121, 140, 160)


def _shown(app: PituiApp) -> dict[str, int]:
    """The width of each pane on screen, by id (hidden panes left out)."""
    panes: dict[str, int] = {}
    for name in ("conversation-box", "tools", "branches"):
        pane: Widget = app.query_one(f"#{name}")
        if pane.display and pane.region.width:
            panes[name] = pane.region.width
    return panes


def _check_fits(app: PituiApp, width: int) -> dict[str, int]:
    panes = _shown(app)
    assert panes["conversation-box"] >= READABLE, panes
    assert sum(panes.values()) == width, panes  # side by side, nothing off screen
    for name in panes:
        assert app.query_one(f"#{name}").region.right <= width
    return panes


async def _start(pilot: Pilot[None], source: FeedSource) -> None:
    source.emit(demo_conversation())
    await settle(pilot)


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_conversation_keeps_sixty_columns(width: int) -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(width, 30)) as pilot:
        await _start(pilot, source)
        three = width >= 120
        panes = _check_fits(app, width)
        expected = (
            {"conversation-box", "tools", "branches"} if three else {"conversation-box", "tools"}
        )
        assert set(panes) == expected, panes
        await pilot.press("ctrl+b")  # the tree: beside Tools from 120, in its place below
        await settle(pilot)
        panes = _check_fits(app, width)
        assert ("tools" in panes) == three, panes
        assert "branches" in panes
        tree_beside_tools = panes["branches"]
        await pilot.press("f2")  # Tools hidden: its width goes to the tree
        await settle(pilot)
        panes = _check_fits(app, width)
        assert set(panes) == {"conversation-box", "branches"}, panes
        if three:
            assert panes["branches"] > tree_beside_tools, panes
        else:
            assert panes["branches"] == tree_beside_tools, panes
        await pilot.press("f2")  # Tools back
        await settle(pilot)
        assert ("tools" in _check_fits(app, width)) == three


async def test_a_resize_across_the_breakpoints_keeps_the_rules() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(160, 30)) as pilot:
        await _start(pilot, source)
        for width in (120, 100, 140, 119, 121):
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            _check_fits(app, width)
