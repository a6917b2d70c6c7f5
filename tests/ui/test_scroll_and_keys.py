"""The TUI items of issue 15: following output, the "new output" pill, the Tools pane,
the palette, the Ctrl+C hint, and a denied call after resume."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from pitui.ui.view.state import AssistantItem, ToolCardItem
from pitui.ui.widgets.conversation import ConversationView, ItemPane
from pitui.ui.widgets.status_bar import StatusBar
from pitui.ui.widgets.tool_card import ToolCard
from pitui.ui.widgets.tool_pane import ToolPane
from tests.ui.flows import approval, idle, items_of, launch, make_project, started, submit
from tests.ui.harness import FeedSource, make_app, settle
from tests.ui.script import Script

FIXTURES = Path(__file__).parents[1] / "fixtures"


def history(n: int, start: int = 0) -> Script:
    s = Script().start()
    for k in range(start, start + n):
        s.user(f"question {k}").assistant().text(f"answer {k}\n\nwith a second paragraph").end()
    return s.agent_end()


def at_bottom(pane: ItemPane) -> bool:
    return pane.max_scroll_y > 0 and pane.scroll_y == pane.max_scroll_y


async def _feed(pilot: Pilot[None], source: FeedSource, script: Script) -> None:
    source.emit(script.events)
    await settle(pilot)
    await settle(pilot)


async def test_after_resizes_the_conversation_keeps_following_new_output() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        await _feed(pilot, source, history(20))
        pane = app.query_one(ConversationView)
        assert at_bottom(pane)
        for size in ((120, 36), (80, 24)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
        await _feed(pilot, source, history(3, start=20))
        assert at_bottom(pane)
        assert not pane.border_subtitle  # no "new output" pill: it was followed


async def test_the_pill_shows_only_for_new_output_below_and_takes_no_line() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(120, 36)) as pilot:
        await _feed(pilot, source, history(20))
        pane = app.query_one(ConversationView)
        tools = app.query_one(ToolPane)
        height = pane.outer_size.height
        pane.scroll_relative(y=-5, animate=False)  # a plain scroll: nothing new
        await settle(pilot)
        assert not pane.following and not pane.border_subtitle
        await _feed(pilot, source, history(1, start=20))
        assert str(pane.border_subtitle) == "new output ↓"
        assert pane.outer_size.height == height == tools.outer_size.height
        pane.scroll_end(animate=False)
        await settle(pilot)
        assert not pane.border_subtitle and pane.following


async def test_a_resumed_long_session_opens_at_its_last_message(tmp_path: Path) -> None:
    session_file = tmp_path / "long.jsonl"  # pi's own 700-entry session
    shutil.copy(FIXTURES / "pi-oracle" / "large-session.v3.jsonl", session_file)
    project = make_project(tmp_path / "project")
    app = launch(project, "--model", "demo/demo", "--session", str(session_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await settle(pilot)
        await settle(pilot)
        pane = app.query_one(ConversationView)
        assert at_bottom(pane)
        last = items_of(app, AssistantItem)[-1]
        assert last.text.endswith("Did we revert")
        widget = pane.widget_for(last.id)
        assert widget is not None
        bottom = pane.scroll_offset.y + pane.scrollable_content_region.height
        assert pane.scroll_offset.y < widget.virtual_region.bottom <= bottom


async def test_a_new_tool_card_is_scrolled_into_view() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(120, 36)) as pilot:
        calls = Script().start().user("go").assistant()
        for k in range(40):
            calls.tool_call(f"c{k}", "bash", {"command": f"echo {k}"})
        source.emit(calls.end().events)
        await settle(pilot)
        tools = app.query_one(ToolPane)
        older = tools.widget_for("tool:c22")
        assert isinstance(older, ToolCard)
        tools.select("tool:c22")  # the user looks at an old card: the pane leaves the bottom
        await settle(pilot)
        assert not tools.following
        more = Script().start().assistant().tool_call("c99", "bash", {"command": "echo new"})
        source.emit(more.end().events)
        await settle(pilot)
        await settle(pilot)
        card = tools.widget_for("tool:c99")
        assert card is not None
        bottom = tools.scroll_offset.y + tools.scrollable_content_region.height
        assert tools.scroll_offset.y <= card.virtual_region.y
        assert card.virtual_region.bottom <= bottom


async def test_the_first_ctrl_c_says_how_to_quit() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        # On the status bar's key line, not a toast over the composer's border.
        hints = app.screen.query_one(StatusBar).part("hints")
        assert "press Ctrl+C again to quit" in hints
        assert not list(app._notifications)
        assert not app._exit
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "1")


@pytest.mark.usefixtures("demo")
async def test_a_denied_call_shows_denied_after_resume(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    path = tmp_path / "s.jsonl"
    app = launch(project, "--model", "demo/demo", "--session", str(path))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, "change 3000 to 8080 in src/config.ts")
        await approval(pilot)
        await pilot.press("n", *"not now", "enter")
        await idle(pilot)
        [live] = items_of(app, ToolCardItem)
        assert live.state == "denied"
    again = launch(project, "--model", "demo/demo", "--session", str(path))
    async with again.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await settle(pilot)
        [resumed] = items_of(again, ToolCardItem)
        assert resumed.state == "denied"
        card = again.query_one(ToolPane).widget_for(resumed.id)
        assert card is not None and "⊘" in str(card.render())
