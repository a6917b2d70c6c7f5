"""Start the session once the UI shows: the TUI's start-up after the first frame.

:class:`Launcher` creates the AgentSession in a worker from the CLI flags (its modules
imported in a thread meanwhile), attaches it, reports settings / model warnings as
notices and sends the initial prompts. A resumed session's last messages are shown from
the end of its file first; ``pitui -r`` opens the resume picker at once.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from pitui.core.attachments.arguments import split_file_arguments
from pitui.errors import PituiError
from pitui.ui.commands.actions import BY_SLASH
from pitui.ui.commands.resume import resume_picker, switch_session
from pitui.ui.host import push_for_result
from pitui.ui.live.session import LiveSession

if TYPE_CHECKING:
    import argparse  # the TUI's flags may come without it (pitui.cli)

    from pitui.core.agent_session import AgentSession
    from pitui.core.session_setup import SessionOptions
    from pitui.ui.controllers.tmux_keys import EarlyTmuxQuery
    from pitui.ui.host import UiHost
    from pitui.ui.screens.resume import ResumeScreen

DEMO_HINT = (
    "No API key found: running the offline demo model. Set ANTHROPIC_API_KEY or "
    "OPENAI_API_KEY (or add models.json) and pick a model with /model."
)
TUI_TRUST_HINT = "Answer the trust question to load them (or run `pitui trust`)."
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
        demo_shown: bool = False,
        tmux: EarlyTmuxQuery | None = None,
    ) -> None:
        self.args = args
        self.cwd = cwd
        self.snapshot = snapshot
        """The start-up snapshot's key (None: a resumed session, nothing remembered)."""
        self.git_branch = git_branch
        self.demo_shown = demo_shown
        """The first frame already shows :data:`DEMO_HINT` (from the start-up snapshot)."""
        self._tmux = tmux
        """The tmux keyboard query started at launch (None: ask after the first frame)."""
        self._tmux_answered = False
        """The first frame already holds the tmux keyboard warning, if there is one."""

    def early_tmux_warning(self) -> str | None:
        """The tmux keyboard warning for the first frame, if tmux has answered by then
        (otherwise it is asked again, asynchronously, once the session is up)."""
        query = self._tmux
        if query is None:
            return None
        answered, warning = query.answer()
        if not answered:
            query.close()
        self._tmux_answered = answered
        return warning

    async def start(self, host: UiHost) -> None:
        """Build the session, attach it, show warnings, run the initial prompts."""
        await self._preview(host)
        # The session's modules (models, tools, providers) import in a thread: ~0.3 s
        # during which keys and frames go on (and the preview stays responsive).
        try:
            await asyncio.to_thread(_import_session_modules)
        except Exception:  # e.g. a lock clash with an import on the loop: import below
            _log.debug("session modules: threaded import failed", exc_info=True)
        from pitui.ai._base import share_loaded_fields
        from pitui.core.session_setup import create_agent_session
        from pitui.ui.controllers.approvals import ApprovalBroker
        from pitui.ui.live.snapshot import write_snapshot
        from pitui.ui.view.events import AddNotice

        share_loaded_fields()  # the session's models live as long as the app: keep them small
        options = tui_options(self.args, self.cwd)
        options.asker = ApprovalBroker(host, self.cwd).ask
        options.reserved_commands = tuple(BY_SLASH)  # built-ins win over templates
        options.trust_hint = TUI_TRUST_HINT
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
            await host.prompts.run_waiting_commands()  # each says there is no session
            return
        live = LiveSession(session, self.git_branch, options.session_dir)
        await host.attach_session(live)
        if picking is not None and not await self._resume_picked(host, picking):
            return
        # Commands and keys typed while it loaded, in order (a worker: they may ask).
        host.run_worker(host.prompts.run_waiting_commands(), group="commands", exit_on_error=False)
        await asyncio.to_thread(_prepare_connection, session)
        notices = [AddNotice(w, "warning") for w in options.warnings]
        demo = live.info().demo and not self.args.model
        if demo and not self.demo_shown:
            notices.append(AddNotice(DEMO_HINT, "warning"))
        elif self.demo_shown and not demo:  # the snapshot was stale: a model was found
            model = live.info().model_id or "a model"
            notices.append(AddNotice(f"Using {model}: an API key was found after all."))
        keyboard = None
        if not self._tmux_answered:
            from pitui.ui.controllers.tmux_keys import tmux_keyboard_warning

            keyboard = await tmux_keyboard_warning()
        if keyboard is not None:
            notices.append(AddNotice(keyboard, "warning"))
        if notices:
            await host.apply(notices)
        self._set_up_composer(host, session)
        await self._ask_trust(host, session, options)
        if session.mcp is not None and session.mcp.untrusted:
            from pitui.ui.commands.mcp import ask_project_servers

            host.run_guarded(ask_project_servers(host, session.mcp), "mcp")
        files, typed = split_file_arguments(list(self.args.messages))
        prompts = [m for m in typed if m.strip()] + host.prompts.take_early_prompts()
        listing = await self._show_listing(host, session, prompted=bool(prompts or files))
        if prompts or files:
            run = _prompt_in_turn(session, prompts or [""], files)
            host.run_guarded(host.prompts.follow_run(run), "session")
        await asyncio.to_thread(write_snapshot, self.snapshot, live.info(), listing)

    @staticmethod
    def _set_up_composer(host: UiHost, session: AgentSession) -> None:
        """The composer's project folder, editor and attachments, from the session."""
        composer = host.main.composer
        composer.project_root = session.cwd
        composer.external_editor = session.settings.external_editor
        composer.attachments_enabled = True

    async def _ask_trust(
        self, host: UiHost, session: AgentSession, options: SessionOptions
    ) -> None:
        """Ask once whether the project's skills and templates may load (pi's trust)."""
        from pitui.core.resources.trust_flow import decide_project_trust, needs_trust_question
        from pitui.ui.screens.trust import TrustDialog

        resources = session.resources
        if not needs_trust_question(resources):
            return
        answer = await push_for_result(host, TrustDialog(session.cwd, resources.skipped))
        if answer is None:
            return
        loaded = await decide_project_trust(
            session,
            answer,
            system_prompt=options.system_prompt,
            append_system_prompt=options.append_system_prompt,
            reserved_commands=options.reserved_commands,
        )
        for warning in loaded.warnings() if answer else ():
            await host.notice(warning, "warning")
        shown = "loaded" if answer else "not loaded (remembered; `pitui trust` changes it)"
        await host.notice(f"Project skills and prompt templates {shown}.")

    @staticmethod
    async def _show_listing(host: UiHost, session: AgentSession, *, prompted: bool) -> list[str]:
        """What is loaded, above the conversation, until the first prompt (``prompted``:
        one is on its way already, from the command line or typed while loading). Returns
        its lines, for the start-up snapshot: the next start draws them in its first frame."""
        from pitui.ui.view.startup_listing import startup_lines

        resources = session.resources
        quiet = session.settings.quiet_startup
        lines = startup_lines(session.cwd, resources.context_files, resources, quiet)
        if prompted:
            await host.main.hide_startup_listing()
        elif not session.messages:
            await host.main.show_startup_listing(lines)
        return lines

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
    ) -> tuple[ResumeScreen, asyncio.Future[Path | None]] | None:
        """``pitui -r``: the resume picker, at once (the session loads meanwhile, as a new
        one, and switches to the chosen file when it is picked)."""
        if not resume_requested(self.args):
            return None
        options.continue_recent = False
        picker = resume_picker(host, self.cwd, options.session_dir)
        return picker, push_for_result(host, picker)

    async def _resume_picked(
        self, host: UiHost, picking: tuple[ResumeScreen, asyncio.Future[Path | None]]
    ) -> bool:
        """Switch to the picked session; without a choice quit, as pi (False)."""
        picker, picked = picking
        path = await picked
        if path is None:
            host.exit(message="No session selected")
            return False
        await host.guarded(switch_session(host, path, picker.key_hold))
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


async def _prompt_in_turn(
    session: AgentSession, prompts: list[str], files: list[str] | None = None
) -> None:
    """The initial prompts, one run after another (an error ends the sequence); the
    command line's ``@file`` arguments go with the first, in one turn (as pi)."""
    from pitui.core.attachments.initial import attach_to_first

    attached = await attach_to_first(session, prompts, files or [])
    for index, text in enumerate(prompts):
        if index == 0 and attached is not None:
            await session.prompt(text, attached.images or None, expand=False)
        else:
            await session.prompt(text)
