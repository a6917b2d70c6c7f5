"""``/resume`` (and ``pitui -r``, the palette, the ``resume`` key): pick a session in the
resume picker and switch to it in place.

The switch is :meth:`AgentSession.resume`: the conversation, the Tools and Branches
panes and the status bar follow its ``session_changed`` event (the app rebuilds its view
on it); no restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.ui.app import PituiApp
    from pitui.ui.commands import Commands
    from pitui.ui.screens.resume import ResumeScreen

RESUMED = "Resumed session"


def picker_for(app: PituiApp, session: AgentSession | None) -> ResumeScreen:
    """A resume picker for the app's folder and ``--session-dir`` (renames of the open
    session go through it; other files are renamed on disk)."""
    from pitui.core.session.listing_ops import picker_scopes, rename_session
    from pitui.ui.screens.resume import ResumeScreen

    live = app.live
    cwd = str(session.cwd) if session is not None else str(Path.cwd())
    session_dir = live.session_dir if live is not None else None
    current = session.session_file if session is not None else None

    async def rename(path: Path, name: str) -> None:
        if session is not None and current is not None and path == current:
            await session.set_name(name)
            app.run_worker(app.commands.notice(f"Session name set: {name}"))
            return
        await rename_session(path, name)

    return ResumeScreen(
        picker_scopes(cwd, session_dir),
        current_path=str(current) if current is not None else None,
        rename=rename,
    )


async def resume_command(commands: Commands, _arg: str) -> None:
    """``/resume``: the picker; the chosen session replaces the current one in place."""
    session = commands.require_session()
    app = commands.app

    async def chosen(path: Path | None) -> None:
        if path is not None:
            await commands.guarded(switch_session(commands, path))

    app.push_screen(picker_for(app, session), chosen)


async def switch_session(commands: Commands, path: Path) -> None:
    """Make ``path`` the session (model and thinking level restored) and say so."""
    session = commands.require_session()
    if session.session_file is not None and path == session.session_file:
        await commands.notice("Already in this session")
        return
    damage = await session.resume(path)
    commands.refresh_status()
    commands.notice_after_events(RESUMED)
    if damage is not None:  # lines skipped or the path cut while loading: say so
        commands.notice_after_events(damage, "warning")
    started_in = session.store.cwd
    if started_in and Path(started_in) != session.cwd:
        commands.notice_after_events(
            f"This session was started in {started_in}; tools keep working in {session.cwd}",
            "warning",
        )
