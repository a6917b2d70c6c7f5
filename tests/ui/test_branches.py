"""The Branches pane on a real session: live rows, navigation (with and without a summary,
cancelled), labels, fork, clone and sibling switching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from pitui.ai.types import UserMessage
from pitui.core.agent_session import AgentSession
from pitui.core.session.entries import BranchSummaryEntry, LabelEntry, MessageEntry
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.screens.fork import ForkPicker
from pitui.ui.screens.label import LabelEditor
from pitui.ui.screens.navigate import SummaryChooser
from pitui.ui.view.state import AssistantItem, ProgressItem, UserItem
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.composer import Composer
from tests.replay_server import ReplayServer, Reply, write_fake_anthropic_models
from tests.ui.command_support import (
    make_session,
    notices,
    running,
    settle,
    submit,
    wait_until,
)


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def tree(app: PituiApp) -> BranchTree:
    return app.main.branches.rows


def row_lines(app: PituiApp) -> list[str]:
    state = tree(app).state
    assert state is not None
    return [state.view.row(i).line() for i in range(len(state))]


def user_entries(session: AgentSession) -> list[MessageEntry]:
    return [
        e
        for e in session.store.get_entries()
        if isinstance(e, MessageEntry) and isinstance(e.message, UserMessage)
    ]


TWO_PROMPTS = ("first prompt", "second prompt")


async def select(pilot: Pilot[None], entry_id: str) -> None:
    """Focus the tree with Ctrl+B and move the selection to ``entry_id`` with the keys."""
    await pilot.press("ctrl+b")
    app = pilot.app
    assert isinstance(app, PituiApp)
    state = tree(app).state
    assert state is not None
    target = state.view.index_of(entry_id)
    assert target is not None
    while state.selected != target:
        await pilot.press("up")
    await settle(pilot)


async def open_chooser(pilot: Pilot[None], entry_id: str) -> None:
    """Select ``entry_id`` in the tree and press Enter: the navigation's chooser opens."""
    await select(pilot, entry_id)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SummaryChooser), "the chooser")


async def branch_off(session: AgentSession, pilot: Pilot[None]) -> str | None:
    """Send a changed second prompt: the session forks there. Returns the old leaf."""
    old_leaf = session.store.get_leaf_id()
    await session.navigate(user_entries(session)[1].id)
    await submit(pilot, "changed prompt")
    return old_leaf


async def test_rows_follow_the_session_live_without_rebuilding(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        lines = row_lines(app)
        assert lines[0] == "• user: first prompt"
        assert lines[-1].startswith("• assistant: ") and lines[-1].endswith("←")
        state = tree(app).state
        await submit(pilot, "third prompt")
        assert tree(app).state is state  # the same rows, extended
        assert "• user: third prompt" in row_lines(app)
        footer = app.main.branches.query_one("#branches-footer", Static)
        assert str(footer.content).endswith("(6/6)")


async def test_navigate_without_summary_puts_the_text_in_the_composer(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        second = user_entries(session)[1]
        await open_chooser(pilot, second.id)
        await pilot.press("enter")  # No summary
        await wait_until(pilot, lambda: session.store.get_leaf_id() == second.parent_id, "leaf")
        await settle(pilot)
        composer = app.query_one(Composer)
        assert composer.text == "second prompt" and composer.has_focus
        assert [m.role for m in session.messages] == ["user", "assistant"]
        # editing and sending it makes a new branch
        composer.load_text("changed prompt")
        await pilot.press("enter")
        await settle(pilot)
        lines = row_lines(app)
        assert "├⊟ • user: changed prompt" in lines and "└⊟ user: second prompt" in lines
        changed = next(i for i in app.chat.items if isinstance(i, UserItem) and i.branch)
        assert changed.text == "changed prompt" and changed.branch == (2, 2)


async def test_enter_on_the_leaf_is_already_here(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, "only prompt") as (app, pilot):
        await pilot.press("ctrl+b", "enter")
        await settle(pilot)
        assert notices(app)[-1] == "Already at this point"
        assert not isinstance(app.screen, SummaryChooser)


async def test_navigate_with_a_summary_writes_a_branch_summary(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        first_reply = session.store.get_entries()[-3]
        await open_chooser(pilot, first_reply.id)
        await pilot.press("down", "enter")  # Summarize
        await wait_until(
            pilot,
            lambda: isinstance(session.store.get_leaf_entry(), BranchSummaryEntry),
            "the summary",
        )
        await settle(pilot)
        summary = session.store.get_leaf_entry()
        assert isinstance(summary, BranchSummaryEntry) and summary.parent_id == first_reply.id
        assert [m.role for m in session.messages] == ["user", "assistant", "branchSummary"]
        assert any("• [branch summary]:" in line for line in row_lines(app))
        assert app.query_one(Composer).text == ""  # an assistant target: no editor text


async def test_cancelling_the_summary_writes_nothing(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    write_fake_anthropic_models(replay_server.url)
    replay_server.add(
        Reply.sse_file("anthropic_text.sse"),
        Reply.sse_file("anthropic_text.sse"),
        Reply.sse_file("anthropic_text.sse", chunk_size=20, delay_s=0.5),
    )
    options = SessionOptions(cwd=tmp_path, model="fake/claude-fake", session_dir=tmp_path / "s")
    session = await create_agent_session(options)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        assert session.session_file is not None
        before = session.session_file.read_bytes()
        leaf = session.store.get_leaf_id()
        await open_chooser(pilot, user_entries(session)[1].id)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: session.navigation.is_summarizing, "the summary")
        card = next(i for i in app.chat.items if isinstance(i, ProgressItem))
        assert card.title == "Summarizing branch" and card.outcome is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: not session.navigation.is_summarizing, "the cancel")
        await settle(pilot)
        assert session.session_file.read_bytes() == before
        assert session.store.get_leaf_id() == leaf
        card = next(i for i in app.chat.items if isinstance(i, ProgressItem))
        assert card.outcome == "Branch summary cancelled"
        assert tree(app).has_focus  # back in the tree, at that node
        state = tree(app).state
        assert state is not None and state.selected_id == user_entries(session)[1].id


async def test_label_set_and_clear(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        first = user_entries(session)[0]
        await select(pilot, first.id)
        await pilot.press("L")
        await wait_until(pilot, lambda: isinstance(app.screen, LabelEditor), "the editor")
        await pilot.press(*"start", "enter")
        await wait_until(pilot, lambda: session.store.get_label(first.id) == "start", "label")
        await settle(pilot)
        assert row_lines(app)[0] == "• [start] user: first prompt"
        assert isinstance(session.store.get_leaf_entry(), LabelEntry)
        await pilot.press("L")
        await wait_until(pilot, lambda: isinstance(app.screen, LabelEditor), "the editor")
        await pilot.press("ctrl+a", "ctrl+k", "enter")  # empty clears
        await wait_until(pilot, lambda: session.store.get_label(first.id) is None, "cleared")
        await settle(pilot)
        assert row_lines(app)[0] == "• user: first prompt"


async def test_fork_from_the_pane_and_from_the_picker(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        old_file = session.session_file
        assert old_file is not None
        old_bytes = old_file.read_bytes()
        second = user_entries(session)[1]
        await select(pilot, second.id)
        await pilot.press("F")
        await wait_until(pilot, lambda: session.session_file != old_file, "the fork")
        await settle(pilot)
        new_file = session.session_file
        assert new_file is not None and new_file.exists()
        header = json.loads(new_file.read_text().splitlines()[0])
        assert header["parentSession"] == str(old_file)
        assert old_file.read_bytes() == old_bytes
        assert app.query_one(Composer).text == "second prompt"
        assert [m.role for m in session.messages] == ["user", "assistant"]
        assert row_lines(app)[-1].endswith("←") and len(row_lines(app)) == 2
        # /fork lists the user messages newest first
        app.query_one(Composer).load_text("")
        await submit(pilot, "/fork")
        await wait_until(pilot, lambda: isinstance(app.screen, ForkPicker), "the picker")
        picker = app.screen
        assert isinstance(picker, ForkPicker)
        assert [text for _, text in picker.points] == ["first prompt"]
        await pilot.press("enter")
        await wait_until(pilot, lambda: session.session_file != new_file, "the second fork")
        await settle(pilot)
        assert app.query_one(Composer).text == "first prompt"


async def test_clone_keeps_the_path_in_a_new_file(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        old_file = session.session_file
        before = [m.to_json_dict() for m in session.messages]
        await submit(pilot, "/clone")
        await wait_until(pilot, lambda: session.session_file != old_file, "the clone")
        await settle(pilot)
        assert [m.to_json_dict() for m in session.messages] == before
        assert any("Cloned to a new session" in n for n in notices(app))
        assert len([i for i in app.chat.items if isinstance(i, UserItem)]) == 2


async def test_alt_arrows_switch_to_the_sibling_branch(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        old_leaf = await branch_off(session, pilot)
        await pilot.press("alt+left")
        await wait_until(pilot, lambda: session.store.get_leaf_id() == old_leaf, "the switch")
        await settle(pilot)
        texts = [i.text for i in app.chat.items if isinstance(i, UserItem)]
        assert texts == ["first prompt", "second prompt"]
        marked = [i.branch for i in app.chat.items if isinstance(i, UserItem)]
        assert marked == [None, (1, 2)]
        await pilot.press("alt+right")
        await wait_until(pilot, lambda: session.store.get_leaf_id() != old_leaf, "back")


async def test_a_rebuilt_view_has_its_sibling_marks_at_once(tmp_path: Path) -> None:
    """The marks go into the rebuilt state before its widgets are made: one rebuild, one
    layout, no second pass to mark them (a switch of branch costs a frame less)."""
    from pitui.ui.view.replay import state_from_messages

    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        old_leaf = await branch_off(session, pilot)
        await settle(pilot)
        assert old_leaf is not None
        session.store.branch(old_leaf)
        session.rebuild_from_session()
        await app.rebuild(state_from_messages(session.messages))
        marked = [i.branch for i in app.chat.items if isinstance(i, UserItem)]
        assert marked == [None, (1, 2)]
        assert not [w for w in app.workers if w.group == "branches"]


async def test_rebuilds_at_once_end_as_the_last_one(tmp_path: Path) -> None:
    """Two rebuilds at once (a navigation's own and its event's) end as the last one
    alone would: its widgets, in order, and nothing left over from the other."""
    import asyncio

    from pitui.ui.view.replay import state_from_messages

    session = await make_session(tmp_path)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        await branch_off(session, pilot)
        await settle(pilot)
        branched = state_from_messages(session.messages)
        first_only = state_from_messages(session.messages[:2])
        await asyncio.gather(app.rebuild(first_only), app.rebuild(branched))
        await settle(pilot)
        pane = app.main.conversation
        item_ids = [i.id for i in branched.items if type(i) in pane.factories()]
        assert list(pane._widgets) == item_ids
        mounted = [c for c in pane.children if c in pane._widgets.values()]
        assert len(mounted) == len(item_ids)
        assert len(pane.children) == len(mounted)  # nothing left over from the other


async def test_narrow_ctrl_b_swaps_the_tree_in_and_esc_returns(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, "hello", size=(80, 24)) as (app, pilot):
        assert not app.main.branches.display or app.main.branches.region.width == 0
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert app.main.branches.region.width == 80 and tree(app).has_focus
        await pilot.press(*"hel")  # typing searches
        state = tree(app).state
        assert state is not None and state.query == "hel"
        await pilot.press("escape")  # clears the search
        assert state.query == ""
        await pilot.press("escape")  # back to the composer, tree hidden
        await settle(pilot)
        assert app.query_one(Composer).has_focus
        assert app.main.branches.region.width == 0


async def test_double_escape_on_an_empty_composer_focuses_the_tree(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, "hello") as (app, pilot):
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert tree(app).has_focus


async def test_entries_appear_while_the_agent_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "40")  # slow enough to look mid-run
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    session = await make_session(tmp_path)
    async with running(session) as (app, pilot):
        composer = app.query_one(Composer)
        composer.load_text("read notes.txt")
        composer.submit()
        await wait_until(
            pilot,
            lambda: any("[read: notes.txt]" in line for line in row_lines(app)),
            "the tool result row",
        )
        assert session.is_streaming  # the reply after the tool result is still coming
        state = tree(app).state
        await wait_until(pilot, lambda: not session.is_streaming, "the end of the run")
        await settle(pilot)
        assert tree(app).state is state
        assert row_lines(app)[-1].startswith("• assistant: ") and row_lines(app)[-1].endswith("←")


async def test_ctrl_c_and_ctrl_d_in_the_tree_are_the_tree_s_keys(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    async with running(session, "hello") as (app, pilot):
        await pilot.press("ctrl+b", "ctrl+a")  # the "all" filter
        state = tree(app).state
        assert state is not None and state.view.filter_mode == "all"
        await pilot.press("ctrl+d")  # the default filter, not quit on an empty composer
        mode: str = state.view.filter_mode
        assert mode == "default" and app.is_running
        await pilot.press("ctrl+c")  # back, not clear/quit
        await settle(pilot)
        assert app.query_one(Composer).has_focus and app.is_running


@pytest.mark.parametrize("slow", ["files", "navigation"])
async def test_typing_while_a_navigation_runs_goes_after_the_text_put_back(
    slow: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22 item 9 in fast bursts: keys typed once "No summary" is chosen, while the
    files are compared or the session moves, went to the tree's search (lost) or made the
    composer non-empty so the text was not put back; they follow it instead."""
    import asyncio

    from pitui.ui.controllers.branches import BranchesController

    session = await make_session(tmp_path)
    if slow == "files":
        files_for_move = BranchesController._files_for_move

        async def slow_files(self: BranchesController, *args: object) -> object:
            await asyncio.sleep(0.3)
            return await files_for_move(self, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(BranchesController, "_files_for_move", slow_files)
    else:
        navigate = type(session).navigate

        async def slow_navigate(self: AgentSession, *args: object, **kw: object) -> object:
            await asyncio.sleep(0.3)
            return await navigate(self, *args, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(type(session), "navigate", slow_navigate)
    async with running(session, *TWO_PROMPTS) as (app, pilot):
        second = user_entries(session)[1]
        await open_chooser(pilot, second.id)
        await pilot.press("enter", *" and more")  # No summary, then typing at once
        await wait_until(pilot, lambda: session.store.get_leaf_id() == second.parent_id, "leaf")
        await settle(pilot)
        composer = app.query_one(Composer)
        assert composer.text == "second prompt and more"
        assert composer.cursor_location == (0, len("second prompt and more"))
        state = tree(app).state
        assert state is not None and state.query == ""


async def test_capitals_typed_into_a_search_are_letters(tmp_path: Path) -> None:
    """Typing ``README`` in the pane searched ``REAME`` (Shift+D, the files of the row,
    took the D); while a search is typed capitals are letters, and the shifted actions
    work again once the selection moves."""
    session = await make_session(tmp_path)
    async with running(session, "look at README") as (app, pilot):
        await pilot.press("ctrl+b", *"README")
        await settle(pilot)
        state = tree(app).state
        assert state is not None and state.query == "README"
        assert not isinstance(app.screen, LabelEditor)
        await pilot.press("up", "L")  # the selection moved: Shift+L labels the row
        await wait_until(pilot, lambda: isinstance(app.screen, LabelEditor), "the editor")


async def test_a_resumed_path_gives_its_lines_up_and_still_reads_them(tmp_path: Path) -> None:
    """Memory: once a resumed session's tree is shown, the current path's entries (typed
    for the context) give up their file lines; after Alt+→ the other branch's do too.
    The rows, the conversation and the sibling switch read the same as before."""
    session = await make_session(tmp_path)
    async with running(session, "first prompt", "second prompt") as (_, pilot):
        await branch_off(session, pilot)
        await settle(pilot)
    path = session.session_file
    await session.close()
    assert path is not None
    options = SessionOptions(cwd=tmp_path, model="demo/demo", session_file=path)
    resumed = await create_agent_session(options)
    async with running(resumed) as (app, pilot):
        table = resumed.store.table
        given_up = {p for p in range(len(table)) if table.raws[p] == b""}
        on_path = {p for p in range(len(table)) if table.is_typed(p) and table.line(p)}
        assert given_up and given_up == on_path
        assert any("changed prompt" in line for line in row_lines(app))
        texts = [i.text for i in app.chat.items if isinstance(i, UserItem)]
        assert texts == ["first prompt", "changed prompt"]
        await pilot.press("alt+left")
        await wait_until(
            pilot,
            lambda: (
                len(resumed.messages) > 0
                and "second prompt" in [i.text for i in app.chat.items if isinstance(i, UserItem)]
            ),
            "the switch",
        )
        await settle(pilot)
        assert {p for p in range(len(table)) if table.raws[p] == b""} > given_up
        assert any("second prompt" in line for line in row_lines(app))
    await resumed.close()


async def test_alt_arrows_switch_both_ways_at_a_branch_under_a_tool_result(
    tmp_path: Path,
) -> None:
    """The user went back to a tool result and sent a prompt from there: the tool
    result's children are the model's reply (the old branch) and that prompt. The new
    prompt is marked ‹ 2/2 ›; Alt+← goes to the old reply, marked ‹ 1/2 › (it had no
    marker), and Alt+→ from there comes back (it said "No other branch here")."""
    from pitui.ai.types import ToolResultMessage

    (tmp_path / "notes.txt").write_text("hello\n")
    session = await make_session(tmp_path)
    async with running(session, "read notes.txt") as (app, pilot):
        old_leaf = session.store.get_leaf_id()
        result = next(
            e
            for e in session.store.get_entries()
            if isinstance(e, MessageEntry) and isinstance(e.message, ToolResultMessage)
        )
        await session.navigate(result.id)
        await submit(pilot, "now count the lines")
        await settle(pilot)
        new_leaf = session.store.get_leaf_id()

        def marks() -> list[tuple[int, int] | None]:
            return [i.branch for i in app.chat.items if isinstance(i, UserItem)]

        await wait_until(pilot, lambda: marks() == [None, (2, 2)], "the marker")
        await pilot.press("alt+left")
        await wait_until(pilot, lambda: session.store.get_leaf_id() == old_leaf, "the old reply")
        await settle(pilot)
        assert marks() == [None]  # the old branch starts with a reply: it carries the marker
        replies = [i for i in app.chat.items if isinstance(i, AssistantItem)]
        assert [i.branch for i in replies] == [None] * (len(replies) - 1) + [(1, 2)]
        shown = app.main.conversation.widget_for(replies[-1].id)
        assert shown is not None and "‹ 1/2 ›" in str(shown.query_one(".branch-switch").render())
        await pilot.press("alt+right")
        await wait_until(pilot, lambda: session.store.get_leaf_id() == new_leaf, "back")
        await settle(pilot)
        assert "No other branch here" not in notices(app)
        assert marks() == [None, (2, 2)]
        assert not [i for i in app.chat.items if isinstance(i, AssistantItem) and i.branch]
