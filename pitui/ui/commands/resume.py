"""``/resume`` (and ``pitui -r``, the palette, the ``resume`` key): pick a session in the
resume picker and switch to it in place.

The switch is :meth:`LiveSession.switch_to`: the conversation, the Tools and Branches
panes and the status bar follow its ``session_changed`` event (the app rebuilds its view
on it); no restart. :func:`resume_picker` builds the picker for both ways in.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pitui.ui.host import require_session

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.ui.host import UiHost
    from pitui.ui.screens.resume import ResumeScreen
    from pitui.ui.widgets.key_gate import KeyHold


def resume_picker(
    host: UiHost, cwd: Path, session_dir: Path | None, session: AgentSession | None = None
) -> ResumeScreen:
    """A resume picker for ``cwd`` and ``--session-dir``. Renames of the open ``session``
    (if any) go through it, so its name changes everywhere; other files are renamed on
    disk."""
    from pitui.core.session.listing_ops import picker_scopes, rename_session
    from pitui.ui.screens.resume import ResumeScreen

    current = session.session_file if session is not None else None

    async def rename(path: Path, name: str) -> None:
        if session is not None and current is not None and path == current:
            await session.set_name(name)
            host.run_worker(host.notice(f"Session name set: {name}"))
            return
        await rename_session(path, name)

    return ResumeScreen(
        picker_scopes(str(cwd), session_dir),
        current_path=str(current) if current is not None else None,
        rename=rename,
    )


async def resume(host: UiHost, _arg: str) -> None:
    """``/resume``: the picker; the chosen session replaces the current one in place."""
    session = require_session(host)
    live = host.live
    session_dir = live.session_dir if live is not None else None

    picker = resume_picker(host, session.cwd, session_dir, session)

    async def chosen(path: Path | None) -> None:
        if path is not None:
            await host.guarded(switch_session(host, path, picker.key_hold))

    host.push_screen(picker, chosen)


async def switch_session(host: UiHost, path: Path, held: KeyHold | None = None) -> None:
    """Make ``path`` the session and say so (after the switch's own events); then the
    files of its leaf, when they differ from the working tree (Restore files, as every
    move through the tree offers). ``held``: the keys typed since the pick, let go once
    that question is open (or none is asked)."""
    from pitui.ui.widgets.key_gate import let_go

    try:
        require_session(host)
        live = host.live
        assert live is not None  # require_session said so
        before = live.session.session_file
        notices = await live.switch_to(path)
        host.refresh_status()
        for text, level in notices:
            host.notice_after_events(text, level)
        if live.session.session_file != before:
            # In a worker: the question is a screen, answered by keys this caller may block.
            follow = host.branches.follow_files(f"the session {path.name}", held)
            held = None  # the flow lets them go
            host.run_guarded(follow, "follow-files")
    finally:
        let_go(held)
