"""Keys typed while ``/clone``, ``/fork`` or ``/resume`` compare the files, before the
Restore files question opens, wait for it (the key gate) instead of reaching the
composer: a fast Enter answers the question."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pitui.ui.screens.fork import ForkPicker
from pitui.ui.screens.resume import ResumeScreen
from tests.core.checkpoints.helpers import fast_demo  # noqa: F401  (autouse fixture)
from tests.ui.command_support import (
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
    wait_until,
)
from tests.ui.files_follow_support import (
    NEW,
    OLD,
    app_py,
    demo_session,
    edited_since_checkpoint,
    running,
    send,
    two_points,
)
from tests.ui.harness import burst


async def test_enter_typed_while_clone_compares_answers_its_question(tmp_path: Path) -> None:
    project, session = await edited_since_checkpoint(tmp_path)
    before = session.session_file
    compared = asyncio.Event()
    preview_for = session.checkpoints.preview_for

    async def slow_preview(entry_id: str) -> Any:
        await compared.wait()  # the comparison goes on until the keys are typed
        return await preview_for(entry_id)

    session.checkpoints.preview_for = slow_preview  # type: ignore[method-assign]
    async with running(session, tmp_path) as (app, pilot):
        await send(pilot, "/clone")
        await pilot.pause(0.1)
        burst(app, "enter")  # Restore files: the question's first choice
        await pilot.pause(0.1)
        compared.set()
        await wait_until(pilot, lambda: session.session_file != before, "the clone")
        await settle(pilot)
        assert app.screen is app.main
    assert app_py(project) == OLD


async def test_enter_typed_after_the_fork_pickers_enter_answers_its_question(
    tmp_path: Path,
) -> None:
    project, session, _ = await two_points(tmp_path)
    (project / "app.py").write_text("port = 7070\n")  # since: the fork's point has NEW
    before = session.session_file
    async with running(session, tmp_path) as (app, pilot):
        await send(pilot, "/fork")
        await wait_until(pilot, lambda: isinstance(app.screen, ForkPicker), "the picker")
        await pilot.pause()
        burst(app, "enter", "enter")  # fork at the newest message, Restore files
        await wait_until(pilot, lambda: session.session_file != before, "the fork")
        await settle(pilot)
        assert app.screen is app.main
    assert app_py(project) == NEW


async def test_enter_typed_after_the_resume_pickers_enter_answers_its_question(
    tmp_path: Path,
) -> None:
    project, old = await edited_since_checkpoint(tmp_path)
    source = old.session_file
    await old.close()
    current = await demo_session(project, tmp_path / "sessions")
    await current.prompt("elsewhere")
    async with running(current, tmp_path) as (app, pilot):
        await send(pilot, "/resume")
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen), "the picker")
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        await wait_until(pilot, lambda: screen.rows.selected_row is not None, "the rows")
        await pilot.press("down")
        await pilot.pause()
        row = screen.rows.selected_row
        assert row is not None and Path(row.info.path) == source
        burst(app, "enter", "enter")  # open it, Restore files
        await wait_until(pilot, lambda: current.session_file == source, "the switch")
        await wait_until(pilot, lambda: app_py(project) == OLD, "the restore")
        await settle(pilot)
        assert app.screen is app.main
