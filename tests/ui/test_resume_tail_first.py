"""Resuming a long session: its last messages show first, then the whole session loads.

``pitui --session FILE`` (and ``-c``) shows the end of the branch read from the end of the
file before the session is built; once it is, the view, the tree, the footer and the
model's context are exactly those of loading the file the eager way.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from pitui.ai._base import shares_fields
from pitui.cli import build_parser
from pitui.core.session.store import SessionStore
from pitui.core.session.tree_view import TreeView
from pitui.ui.app import PituiApp
from pitui.ui.launch import create_app
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.replay import state_from_messages
from pitui.ui.view.state import NoticeItem, ToolCardItem, UserItem
from pitui.ui.widgets.branch_tree import LOADING
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.status_bar import StatusBar
from tests.core.compaction.sessions import generate, write

SIZE = (120, 36)


def _signature(item: Any) -> tuple[str, str]:
    """An item without its ids (the preview numbers its messages from 1)."""
    if isinstance(item, ToolCardItem):
        return ("tool", f"{item.tool_call_id} {item.state} {item.output}")
    return (type(item).__name__, str(getattr(item, "text", getattr(item, "summary", ""))))


def _unmarked(item: Any) -> Any:
    """An item without the tree's sibling-branch mark."""
    return replace(item, branch=None) if isinstance(item, UserItem) else item


def _spy_previews(app: PituiApp) -> list[ChatState]:
    shown: list[ChatState] = []
    original = app.show_preview

    async def spy(state: ChatState, *, more: bool = False) -> None:
        shown.append(state)
        await original(state, more=more)
        footer = app.main.branches.query_one("#branches-footer")
        assert LOADING in str(footer.render())  # the tree says it is coming
        if more:  # the first frame is laid out at the end: the last message at the bottom
            # The footer's totals are the whole file's: none shown until it is read.
            assert app.main.query_one(StatusBar).part("usage") == ""
            conversation = app.main.conversation
            bottom = max(w.region.bottom for w in conversation.children if w.display)
            assert bottom == conversation.content_region.bottom

    app.show_preview = spy  # type: ignore[method-assign]
    return shown


async def _loaded(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, PituiApp)
    for _ in range(600):
        if app.live is not None and app.main.branches.rows.state is not None:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            return
        await pilot.pause(0.02)
    raise AssertionError("the session never loaded")


def _messages_json(messages: list[Any]) -> list[dict[str, Any]]:
    return [m.to_json_dict() for m in messages]


async def test_resume_shows_the_tail_first_then_exactly_the_eager_load(tmp_path: Path) -> None:
    path = write(tmp_path / "long.jsonl", generate(2, turns=500))  # ~3,500 entries
    before = path.read_bytes()
    eager = await SessionStore.open(path, read_only=True)
    context = eager.build_context()
    expected = state_from_messages(context.messages)
    app = create_app(build_parser().parse_args(["--session", str(path)]), tmp_path)
    previews = _spy_previews(app)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        assert app.live is not None
        session = app.live.session
        # The model's context, the transcript shown and the tree: as loaded eagerly.
        assert _messages_json(session.messages) == _messages_json(context.messages)
        shown = [i for i in app.chat.items if not isinstance(i, NoticeItem) or i.id[0] == "m"]
        assert [_unmarked(i) for i in shown] == list(expected.items)
        assert any(isinstance(i, UserItem) and i.branch for i in shown)  # the tree marked them
        state = app.main.branches.rows.state
        assert state is not None and len(state.view.table) == eager.entry_count()
        tree = TreeView(eager.table, eager.labels(), eager.get_leaf_id())
        assert state.view.visible == tree.visible and state.footer() == tree.footer(
            tree.leaf_row() or 0
        )
        # The footer sums the file's replies, as pi's does.
        totals = eager.table.roles.count("assistant")
        assert totals and app.chat.usage.input == session.usage_totals().input > 0
        # What showed first is the end of what shows now.
        assert len(previews) == 1
        first = [_signature(i) for i in previews[0].items]
        assert first and first == [_signature(i) for i in expected.items][-len(first) :]
        # The last message is on screen, at the bottom of a conversation that follows it.
        conversation = app.main.conversation
        last = conversation.widget_for(expected.items[-1].id)
        assert last is not None and conversation.following
        # The whole history is reachable: Home in the conversation goes to its first item.
        conversation.focus()
        await pilot.press("home")
        await pilot.pause()
        assert conversation.widget_for(expected.items[0].id) is not None
    assert path.read_bytes() == before  # opening wrote nothing (same model, same level)


async def test_continue_recent_previews_the_newest_session(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    write(sessions / "old.jsonl", generate(1, turns=5))
    path = write(sessions / "new.jsonl", generate(3, turns=40))  # the newest, not the size
    args = build_parser().parse_args(["-c", "--session-dir", str(sessions)])
    app = create_app(args, tmp_path)
    previews = _spy_previews(app)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        assert app.live is not None and app.live.session.session_file == path
        assert len(previews) == 1 and previews[0].items


async def test_keys_typed_while_loading_stay_in_the_composer(tmp_path: Path) -> None:
    path = write(tmp_path / "long.jsonl", generate(4, turns=300))
    app = create_app(build_parser().parse_args(["--session", str(path)]), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello")
        await _loaded(pilot)
        assert app.main.query_one(Composer).text == "hello"


async def test_a_prompt_sent_while_loading_is_queued_then_sent(tmp_path: Path) -> None:
    path = write(tmp_path / "long.jsonl", generate(4, turns=300))
    app = create_app(build_parser().parse_args(["--session", str(path)]), tmp_path)
    previews = _spy_previews(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello", "enter")
        await _loaded(pilot)
        for _ in range(200):
            if any(isinstance(i, UserItem) and i.text == "hello" for i in app.chat.items):
                break
            await pilot.pause(0.02)
        else:
            raise AssertionError("the queued prompt was never sent")
        assert previews and "hello" not in app.chat.follow_up


async def test_a_damaged_line_is_still_reported(tmp_path: Path) -> None:
    entries = generate(5, turns=200)
    lines = [json.dumps(e) for e in entries]
    lines.insert(len(lines) // 2, "{damaged")
    path = tmp_path / "damaged.jsonl"
    path.write_text("\n".join(lines) + "\n")
    damage = (await SessionStore.open(path, read_only=True)).damage_notice()
    assert damage is not None
    app = create_app(build_parser().parse_args(["--session", str(path)]), tmp_path)
    previews = _spy_previews(app)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        notices = [i.text for i in app.chat.items if isinstance(i, NoticeItem)]
        assert damage in notices
        assert len(previews) == 1  # the end of the file was fine: shown first all the same


async def test_no_preview_for_a_new_session(tmp_path: Path) -> None:
    app = create_app(build_parser().parse_args(["--session", str(tmp_path / "new.jsonl")]))
    previews = _spy_previews(app)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        assert previews == []


async def test_a_resumed_session_keeps_its_models_small(tmp_path: Path) -> None:
    """The TUI holds a resumed session for hours: its loaded models share their sets of
    set fields (pitui.ai._base.share_loaded_fields), ~half of a small model's memory."""
    path = write(tmp_path / "long.jsonl", generate(1, turns=40))
    app = create_app(build_parser().parse_args(["--session", str(path)]), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        assert app.live is not None
        messages = app.live.session.messages
        sets = {id(m.__pydantic_fields_set__) for m in messages if m.role == "user"}
        assert len(messages) > 40 and len(sets) == 1
        assert all(shares_fields(m) for m in messages)


async def test_a_shown_tree_holds_no_second_copy_of_the_session(tmp_path: Path) -> None:
    """The Branches pane of a resumed session keeps little beside the entries: no search
    text until the first search (then every row's, found as before), the active path as
    one byte per entry, each row's shape as a number, the children as two int arrays, and a
    typed reply's tool calls as its model's own arguments (not decoded again)."""
    path = write(tmp_path / "long.jsonl", generate(1, turns=40))
    app = create_app(build_parser().parse_args(["--session", str(path)]), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        state = app.main.branches.rows.state
        assert state is not None and app.live is not None
        view = state.view
        assert view._search == {}
        assert type(view._active).__name__ == "PositionSet"
        assert type(view._tree.shapes).__name__ == "ShapeTable"
        assert type(view._children).__name__ == "Children"
        table = view.table
        typed = [table.entry(p) for p in range(len(table)) if table.is_typed(p)]
        own = {
            block.id: block.arguments
            for entry in typed
            for block in getattr(getattr(entry, "message", None), "content", [])
            if getattr(block, "type", None) == "toolCall"
        }
        view._tool_calls()
        assert own and all(view._calls[i][1] is args for i, args in own.items())
        rows = len(view)
        view.set_query("user")
        assert 0 < len(view) < rows and len(view._search) >= len(view)
        view.set_query("")
        assert len(view) == rows
