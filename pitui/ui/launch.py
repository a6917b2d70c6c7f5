"""Start the TUI for real: draw first, then build the AgentSession from the command line.

:func:`create_app` returns the app at once (no core imports, so the first frame is fast);
once the main screen is up, :class:`Launcher` creates the session in a worker from the
CLI flags, attaches it, reports settings / model warnings as notices and sends the
initial prompt. :class:`LiveSession` keeps the status bar in step with the session.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitui import paths
from pitui.core.usage import UsageTotals
from pitui.errors import PituiError
from pitui.ui.widgets.status_bar import SessionInfo

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.core.session_events import SessionEvent
    from pitui.core.session_setup import SessionOptions
    from pitui.ui.app import PituiApp

DEMO_HINT = (
    "No API key found: running the offline demo model. Set ANTHROPIC_API_KEY or "
    "OPENAI_API_KEY (or add models.json) and pick a model with ctrl+l."
)
_log = logging.getLogger(__name__)
END_RUN_WAIT_S = 5.0
"""How long quitting waits for an aborted run to save its partial reply."""
# Events after which the status bar's facts (model, level, name, usage) may have changed.
INFO_EVENT_TYPES = frozenset({"message_end", "agent_end", "session_changed"})
PREVIEW_MESSAGES = 8
"""Messages of a resumed session shown before it loads: a screenful, and fewer items than
the conversation keeps mounted (so no "earlier items" marker counts just these)."""


def create_app(args: argparse.Namespace, cwd: Path | None = None) -> PituiApp:
    """The app for ``args``; the session is created after the first frame."""
    from pitui.ui.app import PituiApp
    from pitui.ui.startup_snapshot import read_snapshot, snapshot_key
    from pitui.ui.theme import discover_themes

    where = cwd or Path.cwd()
    theme = getattr(args, "theme", None) or peek_theme(where) or "dark"
    key = snapshot_key(args, where)
    branch = read_git_branch(where)
    info = replace(read_snapshot(key, where) or SessionInfo(cwd=str(where)), git_branch=branch)
    app = PituiApp(themes=discover_themes(), theme_name=theme, info=info)
    app.new_session = key is not None
    app.startup = Launcher(args, where, snapshot=key, git_branch=branch).start
    return app


def peek_theme(cwd: Path) -> str | None:
    """The ``theme`` setting (project over global), read cheaply before the first frame."""
    found: str | None = None
    for path in (paths.settings_file(), paths.project_settings_file(cwd)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = data.get("theme") if isinstance(data, dict) else None
        if isinstance(value, str) and value:
            found = value
    return found


def tui_options(args: argparse.Namespace, cwd: Path) -> SessionOptions:
    """Session options from the CLI flags. Unlike print mode, ``--approve`` defaults to the
    settings' mode (``ask``): the TUI has someone to ask."""
    from pitui.core.session_setup import options_from_args

    options = options_from_args(args, cwd)
    # A file another pitui holds, or one that cannot be written, is still worth seeing.
    options.fallback_read_only = True
    return options


class Launcher:
    """Creates and attaches the session once the UI shows (``PituiApp.startup``)."""

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

    async def start(self, app: PituiApp) -> None:
        """Build the session, attach it, show warnings, run the initial prompts."""
        await self._preview(app)
        # The session's modules (models, tools, providers) import in a thread: ~0.3 s
        # during which keys and frames go on (and the preview stays responsive).
        try:
            await asyncio.to_thread(_import_session_modules)
        except Exception:  # e.g. a lock clash with an import on the loop: import below
            _log.debug("session modules: threaded import failed", exc_info=True)
        from pitui.core.session_setup import create_agent_session
        from pitui.ui.approvals import ApprovalBroker
        from pitui.ui.startup_snapshot import write_snapshot
        from pitui.ui.view.events import AddNotice

        options = tui_options(self.args, self.cwd)
        options.asker = ApprovalBroker(app, self.cwd).ask
        picking = self._open_picker_first(app, options)
        try:
            session = await create_agent_session(options)
        except Exception as exc:  # e.g. an unknown model, an unreadable file; never a hang
            if not isinstance(exc, PituiError | OSError):
                _log.exception("session start-up failed")
            warnings = [AddNotice(w, "warning") for w in options.warnings]
            await app.apply([*warnings, AddNotice(f"Error: {exc}", "error")])
            await app.action_dequeue()  # prompts typed meanwhile: back into the composer
            app.startup = None  # nothing is loading any more
            return
        live = LiveSession(session, self.git_branch, options.session_dir)
        await app.attach_session(session, live)
        if picking is not None and not await self._resume_picked(app, picking):
            return
        await asyncio.to_thread(_prepare_connection, session)
        notices = [AddNotice(w, "warning") for w in options.warnings]
        if live.info().demo and not self.args.model:
            notices.append(AddNotice(DEMO_HINT, "warning"))
        if notices:
            await app.apply(notices)
        prompts = [m for m in self.args.messages if m.strip()] + app.early_prompts
        app.early_prompts = []
        if prompts:
            app.run_worker(
                _prompt_in_turn(app, session, prompts), group="session", exit_on_error=False
            )
        await asyncio.to_thread(write_snapshot, self.snapshot, live.info())

    async def _preview(self, app: PituiApp) -> None:
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
        await app.show_preview(state, more=found.more)

    def _open_picker_first(
        self, app: PituiApp, options: SessionOptions
    ) -> asyncio.Future[Path | None] | None:
        """``pitui -r``: the resume picker, at once (the session loads meanwhile, as a new
        one, and switches to the chosen file when it is picked)."""
        if not resume_requested(self.args):
            return None
        from pitui.core.session.listing_ops import picker_scopes, rename_session
        from pitui.ui.screens.resume import ResumeScreen

        options.continue_recent = False
        picked: asyncio.Future[Path | None] = asyncio.get_running_loop().create_future()
        scopes = picker_scopes(str(self.cwd), options.session_dir)
        app.push_screen(ResumeScreen(scopes, rename=rename_session), picked.set_result)
        return picked

    async def _resume_picked(self, app: PituiApp, picked: asyncio.Future[Path | None]) -> bool:
        """Switch to the picked session; without a choice quit, as pi (False)."""
        from pitui.ui.commands_resume import switch_session

        path = await picked
        if path is None:
            app.exit(message="No session selected")
            return False
        await app.commands.guarded(switch_session(app.commands, path))
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
    import pitui.ui.approvals  # noqa: F401


def resume_requested(args: argparse.Namespace) -> bool:
    """``-r`` without ``-c`` or ``--session``: pick the session first."""
    return bool(
        getattr(args, "resume", False)
        and not getattr(args, "continue_", False)
        and not getattr(args, "session", None)
        and not getattr(args, "no_session", False)
    )


async def _prompt_in_turn(app: PituiApp, session: AgentSession, prompts: list[str]) -> None:
    from pitui.ui.view.events import AddNotice

    for text in prompts:
        try:
            await session.prompt(text)
        except PituiError as exc:
            await app.apply([AddNotice(f"Error: {exc}", "error")])
            return


class LiveSession:
    """What the app asks of a real AgentSession beyond the SessionPort.

    A plain class, not a dataclass: this module is imported before the first frame, and
    a dataclass's generated methods cost import time for nothing used here.
    """

    def __init__(
        self,
        session: AgentSession,
        git_branch: str | None = None,
        session_dir: Path | None = None,
    ) -> None:
        self.session = session
        self.git_branch = git_branch
        self.session_dir = session_dir
        """``--session-dir`` (None: the pitui home's sessions), for the resume picker."""

    def info(self) -> SessionInfo:
        """The status bar's facts, read from the session now."""
        session = self.session
        model = session.model
        return SessionInfo(
            cwd=str(session.cwd),
            git_branch=self.git_branch,
            session_name=session.session_name,
            model_id=model.id if model is not None else None,
            thinking_level=session.thinking_level if model and model.reasoning else None,
            context_window=model.context_window if model is not None else 0,
            auto_compaction=session.settings.compaction.enabled,
            demo=model is not None and model.api == "demo",
        )

    def file_usage(self, usage: UsageTotals) -> UsageTotals:
        """``usage`` with pi's footer totals: every assistant entry of the file, all branches."""
        totals = self.session.usage_totals()
        unknown = unknown_after_compaction(self.session.messages)
        return replace(
            usage,
            input=totals.input,
            output=totals.output,
            cache_read=totals.cache_read,
            cache_write=totals.cache_write,
            cost=totals.cost,
            context_tokens=None if unknown else usage.context_tokens,
        )

    @staticmethod
    def changes_info(events: tuple[SessionEvent, ...] | list[Any]) -> bool:
        """True when ``events`` may have changed what the status bar shows."""
        return any(getattr(e, "type", None) in INFO_EVENT_TYPES for e in events)

    async def cycle_thinking_level(self) -> str:
        """Shift+Tab: the next level the model accepts."""
        return await self.session.cycle_thinking_level()

    @property
    def busy(self) -> bool:
        """A run is in progress (its reply would be lost if the app just went away)."""
        return self.session.is_streaming

    async def end_run(self) -> None:
        """End the run as Esc does: the partial reply is saved as ``aborted``.

        Waits at most :data:`END_RUN_WAIT_S` for the run to wind down.
        """
        self.session.abort()
        try:
            async with asyncio.timeout(END_RUN_WAIT_S):
                await self.session.wait_for_idle()
        except TimeoutError:
            _log.warning("the run did not end within %.1f s of the abort", END_RUN_WAIT_S)

    async def close(self) -> None:
        """Abort work in progress and release the session file."""
        await self.session.close()


def unknown_after_compaction(messages: Sequence[object]) -> bool:
    """pi (§6.9): context use is unknown (``?``) when the branch has a compaction and no
    successful assistant reply with usage after it."""
    for message in reversed(messages):
        role = getattr(message, "role", None)
        if role == "compactionSummary":
            return True
        if role == "assistant" and getattr(message, "stop_reason", None) not in (
            "error",
            "aborted",
        ):
            usage = getattr(message, "usage", None)
            fields = ("input", "output", "cache_read", "cache_write")
            if usage is not None and sum(getattr(usage, f, 0) for f in fields) > 0:
                return False
    return False


def read_git_branch(cwd: Path) -> str | None:
    """The current git branch of ``cwd`` (``detached`` for a detached HEAD): read from
    ``.git/HEAD``, a file or two: cheap enough for the first frame."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                text = dot_git.read_text(encoding="utf-8").strip()
                if not text.startswith("gitdir:"):
                    return None
                dot_git = (folder / text[len("gitdir:") :].strip()).resolve()
            elif not dot_git.is_dir():
                continue
            head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        prefix = "ref: refs/heads/"
        return head[len(prefix) :] if head.startswith(prefix) else "detached"
    return None
