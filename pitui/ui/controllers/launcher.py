"""Start the session once the UI shows: the TUI's start-up after the first frame.

:class:`Launcher` creates the AgentSession in a worker from the CLI flags (its modules
imported in a thread meanwhile), attaches it, reports settings / model warnings as
notices and sends the initial prompts. A resumed session's last messages are shown from
the end of its file first; ``pitui -r`` opens the resume picker at once.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from pitui.errors import PituiError
from pitui.ui.commands.resume import resume_picker, switch_session
from pitui.ui.host import push_for_result
from pitui.ui.live.session import LiveSession

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.core.session_setup import SessionOptions
    from pitui.ui.host import UiHost

DEMO_HINT = (
    "No API key found: running the offline demo model. Set ANTHROPIC_API_KEY or "
    "OPENAI_API_KEY (or add models.json) and pick a model with ctrl+l."
)
_log = logging.getLogger(__name__)
PREVIEW_MESSAGES = 8
"""Messages of a resumed session shown before it loads: a screenful, and fewer items than
the conversation keeps mounted (so no "earlier items" marker counts just these)."""


def tui_options(args: argparse.Namespace, cwd: Path) -> SessionOptions:
    """Session options from the CLI flags. Unlike print mode, ``--approve`` defaults to the
    settings' mode (``ask``): the TUI has someone to ask."""
    from pitui.core.session_setup import options_from_args

    options = options_from_args(args, cwd)
    # A file another pitui holds, or one that cannot be written, is still worth seeing.
    options.fallback_read_only = True
    return options


def resume_requested(args: argparse.Namespace) -> bool:
    """``-r`` without ``-c`` or ``--session``: pick the session first."""
    return bool(
        getattr(args, "resume", False)
        and not getattr(args, "continue_", False)
        and not getattr(args, "session", None)
        and not getattr(args, "no_session", False)
    )


class Launcher:
    """Creates and attaches the session once the UI shows (the app's start-up)."""

    def __init__(
        self,
        args: argparse.Namespace,
        cwd: Path,
        *,
        snapshot: str | None = None,
        git_branch: str | None = None,
    ) -> None:
        self.args = args
        self.cwd = cwd
        self.snapshot = snapshot
        """The start-up snapshot's key (None: a resumed session, nothing remembered)."""
        self.git_branch = git_branch

    async def start(self, host: UiHost) -> None:
        """Build the session, attach it, show warnings, run the initial prompts."""
        await self._preview(host)
        # The session's modules (models, tools, providers) import in a thread: ~0.3 s
        # during which keys and frames go on (and the preview stays responsive).
        try:
            await asyncio.to_thread(_import_session_modules)
        except Exception:  # e.g. a lock clash with an import on the loop: import below
            _log.debug("session modules: threaded import failed", exc_info=True)
        from pitui.core.session_setup import create_agent_session
        from pitui.ui.controllers.approvals import ApprovalBroker
        from pitui.ui.live.snapshot import write_snapshot
        from pitui.ui.view.events import AddNotice

        options = tui_options(self.args, self.cwd)
        options.asker = ApprovalBroker(host, self.cwd).ask
        picking = self._open_picker_first(host, options)
        try:
            session = await create_agent_session(options)
        except Exception as exc:  # e.g. an unknown model, an unreadable file; never a hang
            if not isinstance(exc, PituiError | OSError):
                _log.exception("session start-up failed")
            warnings = [AddNotice(w, "warning") for w in options.warnings]
            await host.apply([*warnings, AddNotice(f"Error: {exc}", "error")])
            await host.prompts.dequeue()  # prompts typed meanwhile: back into the composer
            host.end_loading()  # nothing is loading any more
            return
        live = LiveSession(session, self.git_branch, options.session_dir)
        await host.attach_session(live)
        if picking is not None and not await self._resume_picked(host, picking):
            return
        await asyncio.to_thread(_prepare_connection, session)
        notices = [AddNotice(w, "warning") for w in options.warnings]
        if live.info().demo and not self.args.model:
            notices.append(AddNotice(DEMO_HINT, "warning"))
        from pitui.ui.controllers.tmux_keys import tmux_keyboard_warning

        keyboard = await tmux_keyboard_warning()
        if keyboard is not None:
            notices.append(AddNotice(keyboard, "warning"))
        if notices:
            await host.apply(notices)
        if session.mcp is not None and session.mcp.untrusted:
            from pitui.ui.commands.mcp import ask_project_servers

            host.run_guarded(ask_project_servers(host, session.mcp), "mcp")
        prompts = [m for m in self.args.messages if m.strip()] + host.prompts.take_early_prompts()
        if prompts:
            host.run_guarded(_prompt_in_turn(session, prompts), "session")
        await asyncio.to_thread(write_snapshot, self.snapshot, live.info())

    async def _preview(self, host: UiHost) -> None:
        """A resumed session (``--session FILE``, ``-c``): its last messages, read from
        the end of the file, shown at once; the session itself loads after them."""
        args = self.args
        if resume_requested(args) or getattr(args, "no_session", False):
            return
        from pitui.core.session.tail import branch_tail, resumed_file
        from pitui.ui.view.replay_json import state_from_json

        session_dir = Path(args.session_dir) if getattr(args, "session_dir", None) else None
        session = Path(args.session) if getattr(args, "session", None) else None
        recent = bool(getattr(args, "continue_", False) or getattr(args, "resume", False))
        path = await asyncio.to_thread(resumed_file, self.cwd, session, session_dir, recent)
        found = await branch_tail(path, PREVIEW_MESSAGES) if path is not None else None
        if found is None:
            return
        try:
            state = state_from_json(found.messages)
        except ValueError:
            return  # not shaped as the models want: the loaded session shows what it is
        await host.show_preview(state, more=found.more)

    def _open_picker_first(
        self, host: UiHost, options: SessionOptions
    ) -> asyncio.Future[Path | None] | None:
        """``pitui -r``: the resume picker, at once (the session loads meanwhile, as a new
        one, and switches to the chosen file when it is picked)."""
        if not resume_requested(self.args):
            return None
        options.continue_recent = False
        return push_for_result(host, resume_picker(host, self.cwd, options.session_dir))

    async def _resume_picked(self, host: UiHost, picked: asyncio.Future[Path | None]) -> bool:
        """Switch to the picked session; without a choice quit, as pi (False)."""
        path = await picked
        if path is None:
            host.exit(message="No session selected")
            return False
        await host.guarded(switch_session(host, path))
        return True


def _prepare_connection(session: AgentSession) -> None:
    """The first request's provider adapter, imported now, and an https endpoint's TLS
    context, built in the background (both off the event loop): the first prompt then
    waits for neither. Only a head start, so a failure here is left to that request."""
    from pitui.ai.stream import prepare_connection

    model = session.model
    if model is None:
        return
    try:
        prepare_connection(model)
    except Exception:
        _log.debug("preparing the connection failed", exc_info=True)


def _import_session_modules() -> None:
    import pitui.core.session_setup
    import pitui.ui.controllers.approvals  # noqa: F401


async def _prompt_in_turn(session: AgentSession, prompts: list[str]) -> None:
    """The initial prompts, one run after another (an error ends the sequence)."""
    for text in prompts:
        await session.prompt(text)
