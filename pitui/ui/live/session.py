"""The one handle the UI holds on its session: :class:`LiveSession`.

It carries the session's events and intents (the :class:`~pitui.ui.live.port.SessionPort`
slice the conversation needs) and, for a real session, the whole
:class:`~pitui.core.agent_session.AgentSession` façade that commands drive. The status
bar's facts (:meth:`LiveSession.info`), pi's footer totals and switching to another file
(:meth:`LiveSession.switch_to`, for ``/resume``, ``/import`` and ``pitui -r``) are here
once, for every caller.

A plain class, not a dataclass: this module is imported before the first frame, and a
dataclass's generated methods cost import time for nothing used here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitui.core.usage import UsageTotals
from pitui.errors import PituiError
from pitui.ui.view.session_info import SessionInfo

if TYPE_CHECKING:
    from pitui.agent.messages import AgentMessage
    from pitui.core.agent_session import AgentSession
    from pitui.core.session_events import SessionEvent
    from pitui.ui.live.port import SessionPort
    from pitui.ui.view.state import NoticeLevel

_log = logging.getLogger(__name__)
NO_SESSION = "No session is connected."
NO_SESSION_NOTICE = "No agent session is connected in this build yet: the UI runs without a model."
"""Shown by an app started without any session or start-up (an embedding host, a test)."""
END_RUN_WAIT_S = 5.0
"""How long quitting waits for an aborted run to save its partial reply."""
# Events after which the status bar's facts (model, level, name, usage) may have changed.
INFO_EVENT_TYPES = frozenset({"message_end", "agent_end", "session_changed"})
RESUMED = "Resumed session"
Notice = tuple[str, "NoticeLevel"]


class LiveSession:
    """The connected session: its port always, its AgentSession when it is a real one."""

    def __init__(
        self,
        session: AgentSession,
        git_branch: str | None = None,
        session_dir: Path | None = None,
    ) -> None:
        self._port: SessionPort = session
        self._facade: AgentSession | None = session
        self.git_branch = git_branch
        self.session_dir = session_dir
        """``--session-dir`` (None: the pitui home's sessions), for the resume picker."""

    @classmethod
    def of_port(cls, port: SessionPort, git_branch: str | None = None) -> LiveSession:
        """A handle on events and intents only (recorded sessions, embedding hosts):
        commands that need the whole session say that none is connected."""
        live = cls.__new__(cls)
        live._port = port
        live._facade = None
        live.git_branch = git_branch
        live.session_dir = None
        return live

    # ------------------------------------------------------------------ the two faces

    @property
    def port(self) -> SessionPort:
        """Events in, intents out (prompt, steer, follow-up, abort, ``!cmd``)."""
        return self._port

    @property
    def facade(self) -> AgentSession | None:
        """The whole AgentSession, or None for a port-only handle."""
        return self._facade

    @property
    def session(self) -> AgentSession:
        """The whole AgentSession.

        Raises:
            PituiError: a port-only handle (commands turn it into a notice).
        """
        if self._facade is None:
            raise PituiError(NO_SESSION)
        return self._facade

    # ------------------------------------------------------------------ port shortcuts

    def subscribe(self, listener: Callable[[SessionEvent], None]) -> Callable[[], None]:
        """Deliver every session event to ``listener`` until unsubscribed."""
        return self._port.subscribe(listener)

    @property
    def messages(self) -> list[AgentMessage]:
        """The transcript of the current branch."""
        return self._port.messages

    @property
    def read_only(self) -> bool:
        """Nothing can be added to the session (its file is open read-only)."""
        return self._facade is not None and self._facade.store.read_only

    @property
    def busy(self) -> bool:
        """A run is in progress (its reply would be lost if the app just went away)."""
        return self._port.is_streaming

    @property
    def is_compacting(self) -> bool:
        """A compaction is being generated (prompts queue until it is done)."""
        return self._facade is not None and self._facade.compaction.is_compacting

    @property
    def is_summarizing(self) -> bool:
        """A branch summary is being generated (Esc cancels it)."""
        return self._facade is not None and self._facade.navigation.is_summarizing

    # ------------------------------------------------------------------ status facts

    def info(self, fallback: SessionInfo | None = None) -> SessionInfo:
        """The status bar's facts, read from the session now (``fallback`` for a
        port-only handle, which has none to read)."""
        session = self._facade
        if session is None:
            return fallback or SessionInfo()
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
            files_differ=session.checkpoints.files_differ,
            read_only=session.store.read_only,
        )

    def file_usage(self, usage: UsageTotals) -> UsageTotals:
        """``usage`` with pi's footer totals: every assistant entry of the file, all branches."""
        if self._facade is None:
            return usage
        from pitui.core.session.stats import context_unknown  # pydantic: not before 1st frame

        totals = self._facade.usage_totals()
        store = self._facade.store
        unknown = context_unknown(store.table, store.get_leaf_id())
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

    # ------------------------------------------------------------------ changes

    async def switch_to(self, path: Path) -> list[Notice]:
        """Make the session file ``path`` the session (model and thinking level restored);
        returns what to tell the user, shown after the switch's events."""
        session = self.session
        if session.session_file is not None and path == session.session_file:
            return [("Already in this session", "info")]
        damage = await session.resume(path)
        notices: list[Notice] = [(RESUMED, "info")]
        if damage is not None:  # lines skipped or the path cut while loading: say so
            notices.append((damage, "warning"))
        started_in = session.store.cwd
        if started_in and Path(started_in) != session.cwd:
            text = f"This session was started in {started_in}; tools keep working in {session.cwd}"
            notices.append((text, "warning"))
        return notices

    async def end_run(self) -> None:
        """End the run as Esc does: the partial reply is saved as ``aborted``.

        Waits at most :data:`END_RUN_WAIT_S` for the run to wind down.
        """
        self._port.abort()
        if self._facade is None:
            return
        try:
            async with asyncio.timeout(END_RUN_WAIT_S):
                await self._facade.wait_for_idle()
        except TimeoutError:
            _log.warning("the run did not end within %.1f s of the abort", END_RUN_WAIT_S)

    async def close(self) -> None:
        """Abort work in progress and release the session file."""
        if self._facade is not None:
            await self._facade.close()
