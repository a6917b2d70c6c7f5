"""``/clone`` and the session switches (``/import``, and ``/resume`` through the same
``switch_session``) offer Restore files as the tree's moves do: the same question, the
same restore, the files of the target's leaf back in the working tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pitui.core.agent_session import AgentSession
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.live.session import LiveSession
from pitui.ui.screens.files_restore import RestoreFilesQuestion
from pitui.ui.theme import discover_themes
from pitui.ui.widgets.composer import Composer
from tests.core.checkpoints.helpers import make_project
from tests.ui.command_support import (
    make_registry,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    wait_until,
)


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def _session(cwd: Path, directory: Path, **options: Any) -> AgentSession:
    return await create_agent_session(
        SessionOptions(
            cwd=cwd, registry=make_registry(), session_dir=directory, model="demo/demo", **options
        )
    )


async def _checkpointed(cwd: Path, directory: Path) -> AgentSession:
    """A session whose leaf has a checkpoint of the project as it is now."""
    session = await _session(cwd, directory)
    await session.prompt("hello")
    assert await session.checkpoints.checkpoint("manual") is not None
    return session


def _app(session: AgentSession, root: Path) -> PituiApp:
    return PituiApp(live=LiveSession(session, session_dir=root), themes=discover_themes([]))


async def _send(pilot: Pilot[None], text: str) -> None:
    """Send a command without waiting for its worker (it waits for the question)."""
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    composer.submit()
    await pilot.pause()


async def _answer(pilot: Pilot[None], app: PituiApp, key: str) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, RestoreFilesQuestion), "the question")
    await pilot.pause(0.05)
    await pilot.press(key)


async def test_clone_offers_the_files_of_the_path(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    session = await _checkpointed(project, tmp_path / "sessions")
    before = session.session_file
    (project / "app.py").write_text("port = 8080\n")  # changed outside pitui
    app = _app(session, tmp_path / "sessions")
    async with app.run_test() as pilot:
        await settle(pilot)
        await _send(pilot, "/clone")
        await _answer(pilot, app, "enter")  # Restore files
        await wait_until(pilot, lambda: session.session_file != before, "the clone")
        await settle(pilot)
    assert (project / "app.py").read_text() == "port = 9090\n"


async def test_clone_escape_cancels_it(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    session = await _checkpointed(project, tmp_path / "sessions")
    before = session.session_file
    (project / "app.py").write_text("port = 8080\n")
    app = _app(session, tmp_path / "sessions")
    async with app.run_test() as pilot:
        await settle(pilot)
        await _send(pilot, "/clone")
        await _answer(pilot, app, "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, RestoreFilesQuestion), "gone")
        await settle(pilot)
        assert session.session_file == before
    assert (project / "app.py").read_text() == "port = 8080\n"


@pytest.mark.parametrize("key", ["enter", "escape"])
async def test_switching_session_offers_its_files(tmp_path: Path, key: str) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    old = await _checkpointed(project, tmp_path / "sessions")
    source = old.session_file
    await old.close()
    assert source is not None
    (project / "app.py").write_text("port = 8080\n")
    current = await _session(project, tmp_path / "sessions")
    started = current.session_file
    app = _app(current, tmp_path / "sessions")
    async with app.run_test() as pilot:
        await settle(pilot)
        await _send(pilot, f"/import {source}")
        await _answer(pilot, app, key)
        await wait_until(pilot, lambda: not isinstance(app.screen, RestoreFilesQuestion), "gone")
        await settle(pilot)
        # Esc keeps the files; the switch happened either way.
        assert current.session_file not in (None, started)
    expected = "port = 9090\n" if key == "enter" else "port = 8080\n"
    assert (project / "app.py").read_text() == expected


async def test_clone_says_what_it_restored_after_the_switch(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    session = await _checkpointed(project, tmp_path / "sessions")
    before = session.session_file
    (project / "app.py").write_text("port = 8080\n")
    app = _app(session, tmp_path / "sessions")
    async with app.run_test() as pilot:
        await settle(pilot)
        await _send(pilot, "/clone")
        await _answer(pilot, app, "enter")  # Restore files
        await wait_until(pilot, lambda: session.session_file != before, "the clone")
        await settle(pilot)
        await pilot.pause(0.3)
        await settle(pilot)
        said = notices(app)
        assert any(n.startswith("Restored 1 file") for n in said), said
        assert any(n.startswith("Cloned to a new session") for n in said), said


async def test_import_says_what_it_restored_after_the_switch(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    old = await _checkpointed(project, tmp_path / "sessions")
    source = old.session_file
    await old.close()
    assert source is not None
    (project / "app.py").write_text("port = 8080\n")
    current = await _session(project, tmp_path / "sessions")
    app = _app(current, tmp_path / "sessions")
    async with app.run_test() as pilot:
        await settle(pilot)
        await _send(pilot, f"/import {source}")
        await _answer(pilot, app, "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, RestoreFilesQuestion), "gone")
        await settle(pilot)
        await pilot.pause(0.3)
        await settle(pilot)
        said = notices(app)
        assert any(n.startswith("Restored 1 file") for n in said), said
        assert any(n.startswith("Session imported from") for n in said), said
