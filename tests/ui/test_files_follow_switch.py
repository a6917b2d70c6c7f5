"""``/clone`` and the session switches (``/import``, and ``/resume`` through the same
``switch_session``) offer Restore files as the tree's moves do: the same question, the
same restore, the files of the target's leaf back in the working tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from pitui.core.agent_session import AgentSession
from pitui.ui.app import PituiApp
from tests.core.checkpoints.helpers import fast_demo  # noqa: F401  (autouse fixture)
from tests.ui.command_support import (
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    wait_until,
)
from tests.ui.files_follow_support import (
    NEW,
    OLD,
    answer_question,
    app_py,
    demo_session,
    edited_since_checkpoint,
    running,
    send,
)


async def _clone(pilot: Pilot[None], session: AgentSession, key: str) -> None:
    """``/clone``, the question answered with ``key``."""
    before = session.session_file
    await send(pilot, "/clone")
    await answer_question(pilot, key)
    if key == "enter":
        await wait_until(pilot, lambda: session.session_file != before, "the clone")
        await settle(pilot)


async def _import_edited(tmp_path: Path) -> tuple[Path, AgentSession, Path]:
    """A checkpointed session, closed, then app.py edited outside pitui and another
    session started: (the project, that session, the file to import)."""
    project, old = await edited_since_checkpoint(tmp_path)
    source = old.session_file
    await old.close()
    assert source is not None
    return project, await demo_session(project, tmp_path / "sessions"), source


async def _said_after_the_switch(pilot: Pilot[None]) -> list[str]:
    """The notices, once the switch's own ones are out (they follow the restore's)."""
    await pilot.pause(0.3)
    await settle(pilot)
    assert isinstance(pilot.app, PituiApp)
    return notices(pilot.app)


async def test_clone_offers_the_files_of_the_path(tmp_path: Path) -> None:
    project, session = await edited_since_checkpoint(tmp_path)
    async with running(session, tmp_path) as (_, pilot):
        await _clone(pilot, session, "enter")  # Restore files
    assert app_py(project) == OLD


async def test_clone_escape_cancels_it(tmp_path: Path) -> None:
    project, session = await edited_since_checkpoint(tmp_path)
    before = session.session_file
    async with running(session, tmp_path) as (_, pilot):
        await _clone(pilot, session, "escape")
        assert session.session_file == before
    assert app_py(project) == NEW


@pytest.mark.parametrize("key", ["enter", "escape"])
async def test_switching_session_offers_its_files(tmp_path: Path, key: str) -> None:
    project, current, source = await _import_edited(tmp_path)
    started = current.session_file
    async with running(current, tmp_path) as (_, pilot):
        await send(pilot, f"/import {source}")
        await answer_question(pilot, key)
        # Esc keeps the files; the switch happened either way.
        assert current.session_file not in (None, started)
    assert app_py(project) == (OLD if key == "enter" else NEW)


async def test_clone_says_what_it_restored_after_the_switch(tmp_path: Path) -> None:
    _, session = await edited_since_checkpoint(tmp_path)
    async with running(session, tmp_path) as (_, pilot):
        await _clone(pilot, session, "enter")
        said = await _said_after_the_switch(pilot)
        assert any(n.startswith("Restored 1 file") for n in said), said
        assert any(n.startswith("Cloned to a new session") for n in said), said


async def test_import_says_what_it_restored_after_the_switch(tmp_path: Path) -> None:
    _, current, source = await _import_edited(tmp_path)
    async with running(current, tmp_path) as (_, pilot):
        await send(pilot, f"/import {source}")
        await answer_question(pilot, "enter")
        said = await _said_after_the_switch(pilot)
        assert any(n.startswith("Restored 1 file") for n in said), said
        assert any(n.startswith("Session imported from") for n in said), said
