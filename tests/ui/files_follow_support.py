"""What the "files follow the branch" Pilot tests share: demo sessions with checkpoints
of a real project, the app on them, and the steps of the restore dialogs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from pitui.core.agent_session import AgentSession
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.live.session import LiveSession
from pitui.ui.screens.files_restore import RestoreFilesQuestion
from pitui.ui.screens.navigate import SummaryChooser
from pitui.ui.theme import discover_themes
from pitui.ui.widgets.composer import Composer
from tests.core.checkpoints.helpers import make_project
from tests.ui.command_support import make_registry, settle, wait_until
from tests.ui.test_branches import select

OLD, NEW = "port = 9090\n", "port = 8080\n"
"""app.py as the checkpoint has it, and as it is edited afterwards."""


async def demo_session(cwd: Path, directory: Path, **options: Any) -> AgentSession:
    """A session on the demo model in project ``cwd``, its file under ``directory``."""
    return await create_agent_session(
        SessionOptions(
            cwd=cwd, registry=make_registry(), session_dir=directory, model="demo/demo", **options
        )
    )


async def checkpointed(cwd: Path, directory: Path) -> AgentSession:
    """A session whose leaf has a checkpoint of the project as it is now."""
    session = await demo_session(cwd, directory)
    await session.prompt("hello")
    assert await session.checkpoints.checkpoint("manual") is not None
    return session


async def edited_since_checkpoint(tmp_path: Path) -> tuple[Path, AgentSession]:
    """A project whose app.py was :data:`NEW` (edited outside pitui) since the session's
    leaf checkpointed it as :data:`OLD`; sessions under ``tmp_path / "sessions"``."""
    project = make_project(tmp_path / "p", {"app.py": OLD})
    session = await checkpointed(project, tmp_path / "sessions")
    (project / "app.py").write_text(NEW)
    return project, session


async def two_points(tmp_path: Path) -> tuple[Path, AgentSession, str]:
    """A session whose first reply has app.py at :data:`OLD` and whose leaf has it at
    :data:`NEW` (the working tree too); returns the project, the session and the first
    reply's id."""
    project = make_project(tmp_path / "p", {"app.py": OLD})
    session = await checkpointed(project, tmp_path / "sessions")
    checkpoint = session.store.get_leaf_entry()
    assert checkpoint is not None and checkpoint.parent_id is not None
    first_reply = checkpoint.parent_id  # the row shown (checkpoints have none)
    (project / "app.py").write_text(NEW)
    await session.prompt("again")
    assert await session.checkpoints.checkpoint("manual") is not None
    return project, session, first_reply


def files_app(session: AgentSession, tmp_path: Path) -> PituiApp:
    """The app on ``session`` (sessions listed from ``tmp_path / "sessions"``)."""
    live = LiveSession(session, session_dir=tmp_path / "sessions")
    return PituiApp(live=live, themes=discover_themes([]))


@asynccontextmanager
async def running(
    session: AgentSession, tmp_path: Path, size: tuple[int, int] = (120, 36)
) -> AsyncIterator[tuple[PituiApp, Pilot[None]]]:
    """The app on ``session`` running under Pilot, its start-up settled."""
    app = files_app(session, tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield app, pilot


def app_py(project: Path) -> str:
    return (project / "app.py").read_text()


async def send(pilot: Pilot[None], text: str) -> None:
    """Send a command without waiting for its worker (it waits for the question)."""
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    composer.submit()
    await pilot.pause()


async def answer_question(pilot: Pilot[None], key: str) -> None:
    """Answer the Restore files question (Enter: restore, Escape: cancel) once it is
    there, and wait until it is gone."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, RestoreFilesQuestion), "the question")
    await pilot.pause(0.05)
    await pilot.press(key)
    await wait_until(pilot, lambda: not isinstance(app.screen, RestoreFilesQuestion), "gone")
    await settle(pilot)


async def open_chooser(pilot: Pilot[None], entry_id: str) -> SummaryChooser:
    """Enter on ``entry_id``'s row; the chooser once its files are compared."""
    await select(pilot, entry_id)
    await pilot.press("enter")
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, SummaryChooser), "the chooser")
    screen = app.screen
    assert isinstance(screen, SummaryChooser)
    await wait_until(pilot, lambda: not screen.comparing, "the comparison")
    return screen
