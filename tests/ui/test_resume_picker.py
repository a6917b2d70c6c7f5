"""The resume picker on real session files: threaded rows with a fork, search (fuzzy,
phrase, regex, message text), scopes, sort and named toggles, rename, delete to the
trash, open (model and level restored, panes follow), ``pitui -r``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from pitui import paths
from pitui.core.agent_session import AgentSession
from pitui.core.session.entries import MessageEntry
from pitui.core.session.ids import encode_cwd
from pitui.core.session.listing import read_session_info
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.live.session import LiveSession
from pitui.ui.screens.resume import ResumeScreen
from pitui.ui.theme import discover_themes
from pitui.ui.view.state import ToolCardItem, UserItem
from pitui.ui.widgets.status_bar import StatusBar
from tests.ui.command_support import (
    make_registry,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    submit,
    wait_until,
)


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def _new(cwd: Path, directory: Path, **options: Any) -> AgentSession:
    return await create_agent_session(
        SessionOptions(cwd=cwd, registry=make_registry(), session_dir=directory, **options)
    )


async def _recorded(cwd: Path, directory: Path, prompts: list[str], **options: Any) -> Path:
    name = options.pop("name", None)
    session = await _new(cwd, directory, model="demo/demo", **options)
    for text in prompts:
        await session.prompt(text)
    if name:
        await session.set_name(name)
    path = session.session_file
    await session.close()
    assert path is not None
    return path


async def _forked(cwd: Path, directory: Path) -> tuple[Path, Path]:
    session = await _new(cwd, directory, model="demo/demo")
    for text in ("list files", "what does main.py do?"):
        await session.prompt(text)
    parent = session.session_file
    users = [
        e for e in session.store.get_entries()
        if isinstance(e, MessageEntry) and e.message.role == "user"
    ]  # fmt: skip
    await session.fork(users[1].id)
    await session.prompt("try it another way")
    child = session.session_file
    await session.close()
    assert parent is not None and child is not None
    return parent, child


@dataclass
class World:
    """Sessions of two folders under one sessions root (``--session-dir``)."""

    cwd: Path
    root: Path
    named: Path
    parent: Path
    fork: Path
    plain: Path
    elsewhere: Path


@pytest.fixture
async def world(tmp_path: Path) -> World:
    cwd, other, root = tmp_path / "proj", tmp_path / "other", tmp_path / "sessions"
    cwd.mkdir()
    other.mkdir()
    here = root / encode_cwd(str(cwd))
    named = await _recorded(cwd, here, ["Refactor the parser", "nested quotes"], name="Parser work")
    parent, fork = await _forked(cwd, here)
    plain = await _recorded(
        cwd, here, ["hello there", "run ls", "tell me about the zebra loader"], thinking="high"
    )
    elsewhere = await _recorded(other, root / encode_cwd(str(other)), ["explain the build"])
    return World(cwd, root, named, parent, fork, plain, elsewhere)


async def _current(world: World) -> AgentSession:
    """The session the picker switches from: another model, no thinking."""
    return await _new(world.cwd, world.root, model="fakeco/fake-1")


def _app(session: AgentSession, root: Path) -> PituiApp:
    return PituiApp(live=LiveSession(session, session_dir=root), themes=discover_themes([]))


async def _open_picker(pilot: Pilot[None], app: PituiApp) -> ResumeScreen:
    await submit(pilot, "/resume")
    await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen), "the picker")
    screen = app.screen
    assert isinstance(screen, ResumeScreen)
    await wait_until(pilot, lambda: not screen.lists[screen.scope].loading, "the listing")
    await settle(pilot)
    return screen


def _titles(screen: ResumeScreen) -> list[str]:
    return [f"{r.prefix}{r.info.name or r.info.first_message}" for r in screen.rows.rows]


def _header(screen: ResumeScreen) -> str:
    return str(screen.query_one("#resume-header", Static).content)


async def _search(pilot: Pilot[None], screen: ResumeScreen, text: str) -> None:
    screen.query_one("#resume-search", Input).value = text
    await settle(pilot)


def _select(screen: ResumeScreen, path: Path) -> None:
    rows = screen.rows
    rows.selected = next(i for i, r in enumerate(rows.rows) if r.info.path == str(path))


async def test_threaded_search_scopes_sort_and_named(world: World) -> None:
    session = await _current(world)
    app = _app(session, world.root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open_picker(pilot, app)
        assert _titles(screen) == ["hello there", "list files", "   └─ list files", "Parser work"]
        assert "Resume Session (Current Folder)" in _header(screen)
        assert "Sort: Threaded" in _header(screen) and "Name: All" in _header(screen)
        # A word only in a later message: found once the message text is read.
        await _search(pilot, screen, "zebra")
        await wait_until(pilot, lambda: _titles(screen) == ["hello there"], "a text match")
        await _search(pilot, screen, '"nested quotes"')
        assert _titles(screen) == ["Parser work"]
        await _search(pilot, screen, "re:ZEB.A\\s+LOADER")
        assert _titles(screen) == ["hello there"]
        await _search(pilot, screen, "zebra qxqxqx")  # every token must match
        assert _titles(screen) == []
        await _search(pilot, screen, "re:(")
        assert "bad regex" in str(screen.query_one("#resume-footer", Static).content)
        await _search(pilot, screen, "")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Sort: Recent" in _header(screen)
        assert all(not title.startswith(" ") for title in _titles(screen))  # flat
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Sort: Fuzzy" in _header(screen)
        await pilot.press("ctrl+s", "ctrl+n")
        await settle(pilot)
        assert "Sort: Threaded" in _header(screen) and "Name: Named" in _header(screen)
        assert _titles(screen) == ["Parser work"]
        await pilot.press("ctrl+n", "tab")
        await wait_until(pilot, lambda: not screen.lists["all"].loading, "all folders")
        await settle(pilot)
        assert "Resume Session (All)" in _header(screen)
        assert "explain the build" in _titles(screen) and screen.rows.show_cwd
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ResumeScreen)
        assert session.session_file != world.plain  # cancelled: nothing switched
    await session.close()


async def test_open_switches_in_place_with_model_and_level(world: World) -> None:
    session = await _current(world)
    app = _app(session, world.root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert session.model is not None and session.model.id == "fake-1"
        screen = await _open_picker(pilot, app)
        _select(screen, world.plain)
        await pilot.press("enter")
        await wait_until(pilot, lambda: session.session_file == world.plain, "the switch")
        await settle(pilot)
        assert not isinstance(app.screen, ResumeScreen)
        assert session.model is not None and session.model.id == "demo"
        assert session.thinking_level == "high"
        users = [i.text for i in app.chat.items if isinstance(i, UserItem)]
        assert users == ["hello there", "run ls", "tell me about the zebra loader"]
        assert any(isinstance(i, ToolCardItem) for i in app.chat.items)
        assert app.main.tools.item_count == 1  # the Tools pane follows
        tree = app.main.branches.rows.state  # and the Branches pane
        assert tree is not None
        rows = [tree.view.row(i).line() for i in range(len(tree))]
        assert any("tell me about the zebra loader" in row for row in rows)
        status = app.main.query_one(StatusBar).part("model")
        assert status.startswith("demo • high")
        assert "Resumed session" in notices(app)
        await submit(pilot, "and now?")  # the conversation continues in that file
        await wait_until(pilot, lambda: not session.is_streaming, "the reply")
        last = read_session_info(world.plain)
        assert last is not None and last.message_count == 10
    await session.close()


async def test_rename_and_delete_to_the_trash(world: World) -> None:
    session = await _current(world)
    app = _app(session, world.root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open_picker(pilot, app)
        _select(screen, world.parent)
        await pilot.press("ctrl+r")
        await settle(pilot)
        rename = screen.query_one("#resume-rename", Input)
        assert rename.display and rename.has_focus
        rename.value = "Main.py tour"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Main.py tour" in _titles(screen), "the new name")
        info = read_session_info(world.parent)
        assert info is not None and info.name == "Main.py tour"
        assert world.parent.read_bytes().splitlines()[-1].startswith(b'{"type":"session_info"')
        _select(screen, world.named)
        content = world.named.read_bytes()
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "Delete session?" in str(screen.query_one("#resume-hints", Static).content)
        await pilot.press("escape")  # cancelled: still there
        await settle(pilot)
        assert world.named.exists() and isinstance(app.screen, ResumeScreen)
        await pilot.press("ctrl+d", "enter")
        await wait_until(pilot, lambda: not world.named.exists(), "the delete")
        await settle(pilot)
        trashed = paths.trash_dir() / world.named.parent.name / world.named.name
        assert trashed.read_bytes() == content
        assert "Parser work" not in _titles(screen)
        assert "moved to trash" in str(screen.query_one("#resume-hints", Static).content)
    await session.close()


async def test_the_open_session_cannot_be_deleted_and_renames_through_the_session(
    world: World,
) -> None:
    session = await _new(world.cwd, world.root, session_file=world.plain)
    app = _app(session, world.root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = await _open_picker(pilot, app)
        _select(screen, world.plain)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "Cannot delete the currently active session" in str(
            screen.query_one("#resume-hints", Static).content
        )
        await pilot.press("ctrl+r")
        screen.query_one("#resume-rename", Input).value = "Zebra"
        await pilot.press("enter")
        await wait_until(pilot, lambda: session.session_name == "Zebra", "the rename")
        assert world.plain.exists()
    await session.close()


def _resume_args(root: Path) -> argparse.Namespace:
    from pitui.cli import build_parser

    return build_parser().parse_args(["-r", "--session-dir", str(root), "--model", "demo/demo"])


async def test_pitui_r_shows_the_picker_first(world: World) -> None:
    from pitui.ui.launch import create_app

    app = create_app(_resume_args(world.root), cwd=world.cwd)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen), "the picker")
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        await wait_until(pilot, lambda: len(screen.rows.rows) == 4, "this folder's sessions")
        _select(screen, world.named)
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: app.live is not None and app.live.session.session_file == world.named,
            "the chosen session",
        )
        await settle(pilot)
        users = [i.text for i in app.chat.items if isinstance(i, UserItem)]
        assert users == ["Refactor the parser", "nested quotes"]


async def test_pitui_r_without_a_choice_quits_as_pi(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    from pitui.ui.launch import create_app

    app = create_app(_resume_args(world.root), cwd=world.cwd)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen), "the picker")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app._exit, "the exit")
    assert app.return_code == 0
    assert "No session selected" in capsys.readouterr().err


async def test_unreadable_rows_and_a_session_held_elsewhere(world: World) -> None:
    from pitui.core.session.writer import SessionWriter

    junk = world.named.parent / "junk.jsonl"
    junk.write_text("not a session\n")
    writer = await SessionWriter.open(world.plain)  # another pitui has it open
    session = await _current(world)
    app = _app(session, world.root)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            screen = await _open_picker(pilot, app)
            assert any(t.startswith("not a session file") for t in _titles(screen))
            _select(screen, junk)
            await pilot.press("enter")
            await settle(pilot)
            assert "Cannot open junk.jsonl" in str(
                screen.query_one("#resume-hints", Static).content
            )
            _select(screen, world.plain)
            before = world.plain.read_bytes()
            await pilot.press("enter")
            await wait_until(pilot, lambda: session.session_file == world.plain, "the switch")
            await settle(pilot)
            assert session.store.read_only
            assert any("in another pitui process: opened read-only" in n for n in notices(app))
            await submit(pilot, "refused")
            assert any("open read-only" in n for n in notices(app))
            assert world.plain.read_bytes() == before
    finally:
        await writer.close()
        await session.close()
