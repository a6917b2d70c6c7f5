"""Checkpoints taken while a session works: before a turn's first tool that may change
files, and when a run ends.

The recorder watches the agent's events through :class:`CheckpointHost` (the session
façade). A checkpoint never fails a turn: when git is missing, the project is too big or a
git command fails, the feature turns off for this session with one notice, and everything
else goes on.

Snapshots are taken ahead, while the model is still talking, and recorded when needed:
files change only through the tools that may change them, so a snapshot taken after the
last such tool ran (or, in a run that has not changed files yet, once the model begins a
call that may) is the files both just before the next such tool and at the run's end. It
starts when the model begins writing a call that may change files (the run's first
checkpoint: a run whose tools only read never pays for one) and, once a run has changed
files, at each turn's start (the model's request and the snapshot overlap); a snapshot no
checkpoint wants is cancelled at the run's end.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from typing import TYPE_CHECKING, Protocol

from pitui.agent.events import MessageUpdateEvent, ToolExecutionStartEvent, TurnStartEvent
from pitui.core.checkpoints.errors import CheckpointError, TooManyFiles
from pitui.core.session_events import SessionNoticeEvent
from pitui.core.tools import READ_ONLY_TOOLS

if TYPE_CHECKING:
    from pathlib import Path

    from pitui.core.checkpoints.engine import CheckpointEngine
    from pitui.core.checkpoints.file_diffs import FileDiff
    from pitui.core.checkpoints.points import Point
    from pitui.core.checkpoints.session_files import (
        Comparison,
        Prepared,
        Reason,
        Recorded,
        RestoreResult,
        SessionFiles,
    )
    from pitui.core.session.store import SessionStore
    from pitui.core.session_events import SessionEvent
    from pitui.core.settings import Settings

_log = logging.getLogger(__name__)


SETTLE_TIMEOUT_S = 60.0
"""How long :meth:`CheckpointRecorder.refresh_differs` waits for a run's end at most."""


class CheckpointHost(Protocol):
    """What recording checkpoints needs from the session it works for."""

    store: SessionStore
    settings: Settings
    cwd: Path

    async def emit(self, event: SessionEvent) -> None: ...


class CheckpointRecorder:
    """Records one session's checkpoints; off when the settings or the machine say so."""

    def __init__(self, host: CheckpointHost, *, enabled: bool = True) -> None:
        self._host = host
        self._enabled = enabled and host.settings.checkpoints.enabled
        self._off_reason: str | None = None
        self._checked = False
        self._turn_done = False
        self._run_changed = False
        """A tool that may change files started since the last run-end checkpoint."""
        self._engine: CheckpointEngine | None = None
        self._files: SessionFiles | None = None
        self._prune: asyncio.Future[None] | None = None
        self._ahead: asyncio.Future[Prepared] | None = None
        """The snapshot for the next checkpoint, taken since the last tool that may change
        files ran (see the module's docstring)."""
        self.files_differ = False
        """The status bar's "files differ" (see :meth:`refresh_differs`)."""
        self._settled = asyncio.Event()
        """Set while no run is between its first turn and its run-end checkpoint."""
        self._settled.set()
        self.last: Recorded | None = None
        """The checkpoint recorded last (tests and the UI's marker read it)."""

    @property
    def enabled(self) -> bool:
        """True while checkpoints are being taken."""
        return self._enabled and self._off_reason is None

    @property
    def off_reason(self) -> str | None:
        """Why checkpoints went off (git missing, too many files, a git failure)."""
        return self._off_reason

    async def files(self) -> SessionFiles | None:
        """The session's checkpoints (None when the feature is off)."""
        if not self._enabled or self._off_reason is not None:
            return None
        # The engine is imported with the first checkpoint: a session whose tools never
        # change files (print mode's usual turn) never loads it.
        from pitui.core.checkpoints.engine import CheckpointEngine
        from pitui.core.checkpoints.session_files import SessionFiles
        from pitui.core.checkpoints.store import Limits

        if not self._checked:
            self._checked = True
            problem = await CheckpointEngine.problem()
            if problem is not None:
                await self._turn_off(f"Checkpoints are off: {problem}.")
                return None
        host = self._host
        if self._engine is None:
            options = host.settings.checkpoints
            limits = Limits(max_file_bytes=options.max_file_bytes, max_files=options.max_files)
            self._engine = CheckpointEngine(host.cwd, limits)
        if self._files is None or self._files.store is not host.store:
            self._files = SessionFiles(self._engine, host.store)
        return self._files

    async def on_event(self, event: object) -> None:
        """Checkpoint before the first tool of a turn that may change files."""
        if isinstance(event, TurnStartEvent):
            self._settled.clear()
            self._turn_done = False
            if self._run_changed:  # this turn's checkpoint, or the run's last one
                await self._snapshot_ahead()
        elif isinstance(event, MessageUpdateEvent):
            if event.assistant_message_event.type == "toolcall_start" and not self._turn_done:
                calls = event.message.tool_calls()
                if calls and calls[-1].name not in READ_ONLY_TOOLS:
                    await self._snapshot_ahead()
        elif (
            isinstance(event, ToolExecutionStartEvent)
            and not self._turn_done
            and event.tool_name not in READ_ONLY_TOOLS
        ):
            self._turn_done = self._run_changed = True
            await self.checkpoint("beforeTools", self._take_ahead())

    async def _snapshot_ahead(self) -> None:
        """Start the snapshot of the next checkpoint in the background (unless one is
        running or done already: no tool that may change files ran since it began)."""
        if self._ahead is not None or self._host.store.read_only:
            return
        files = await self.files()
        if files is not None:
            self._ahead = asyncio.ensure_future(files.prepare())

    def _take_ahead(self) -> asyncio.Future[Prepared] | None:
        ahead, self._ahead = self._ahead, None
        return ahead

    async def after_run(self) -> Recorded | None:
        """The run's last checkpoint, when one of its tools may have changed files (a
        conversation that never touches files gets no checkpoint entries)."""
        try:
            ahead = self._take_ahead()
            if not self._run_changed:
                await _discard(ahead)
                return None
            self._run_changed = False
            recorded = await self.checkpoint("runEnd", ahead)
            self.files_differ = False  # the leaf's checkpoint is the files as they are now
            return recorded
        finally:
            self._settled.set()

    async def refresh_differs(self, *, after_run: bool = False) -> bool:
        """Whether the working tree differs from the current point's checkpoint (kept in
        :attr:`files_differ` for the status bar). ``after_run``: once the run that is
        ending has recorded its last checkpoint (asked at its ``agent_end``, which comes
        before that checkpoint; files edited outside pitui meanwhile then show)."""
        if after_run:
            with suppress(TimeoutError):
                await asyncio.wait_for(self._settled.wait(), SETTLE_TIMEOUT_S)
        files = await self.files()
        try:
            self.files_differ = files is not None and await files.differs()
        except (CheckpointError, OSError):
            self.files_differ = False
        return self.files_differ

    async def checkpoint(
        self, reason: Reason, ahead: asyncio.Future[Prepared] | None = None
    ) -> Recorded | None:
        """Record a checkpoint now, of the files as they are or as ``ahead`` took them
        (nothing when the tree is unchanged or the feature off)."""
        if self._host.store.read_only:
            await _discard(ahead)
            return None
        files = await self.files()
        if files is None:
            await _discard(ahead)
            return None
        try:
            prepared = await ahead if ahead is not None else None
            recorded = await files.record(reason, prepared)
        except TooManyFiles as exc:
            await self._turn_off(exc.message)
            return None
        except CheckpointError as exc:
            _log.warning("checkpoint failed: %s", exc)
            await self._turn_off(f"Checkpoints are off for this session: {exc.message}")
            return None
        except (TimeoutError, OSError) as exc:
            await self._turn_off(f"Checkpoints are off for this session: {exc}")
            return None
        self._maybe_prune(files)
        if recorded is not None:
            self.last = recorded
            if recorded.newly_skipped:
                await self._skipped_notice(recorded.newly_skipped)
        return recorded

    def _maybe_prune(self, files: SessionFiles) -> None:
        """Start the daily housekeeping in the background (once per session at most)."""
        if self._prune is not None:
            return
        engine = files.engine

        async def housekeeping() -> None:
            try:
                if await asyncio.to_thread(engine.store.prune_due):
                    from pitui.core.checkpoints.prune import prune  # once a day at most

                    await prune(engine)
            except (CheckpointError, OSError) as exc:  # best effort: the next day retries
                _log.warning("checkpoint housekeeping failed: %s", exc)

        self._prune = asyncio.ensure_future(housekeeping())

    async def close(self) -> None:
        """Stop background housekeeping and a snapshot taken ahead (git is ended; gc is
        safe to interrupt)."""
        await _discard(self._take_ahead())
        if self._prune is not None and not self._prune.done():
            self._prune.cancel()
            with suppress(asyncio.CancelledError):
                await self._prune
        self._prune = None

    # ------------------------------------------------------------------ moving

    async def comparison_for(self, entry_id: str) -> Comparison | None:
        """What a move to ``entry_id`` would do to the files (None: checkpoints are off,
        no checkpoint is known there, or the files already match)."""
        files = await self.files()
        point = files.point_for(entry_id) if files is not None else None
        if files is None or point is None or not await files.engine.has_tree(point.tree):
            return None
        comparison = await files.compare(point)
        return comparison if comparison.count else None

    async def preview_for(self, entry_id: str) -> tuple[Comparison, list[FileDiff]] | None:
        """:meth:`comparison_for` with each file's diff, for a preview."""
        comparison = await self.comparison_for(entry_id)
        files = await self.files()
        if comparison is None or files is None:
            return None
        from pitui.core.checkpoints.file_diffs import file_diffs

        return comparison, await file_diffs(files.engine, comparison.changes)

    async def restore(self, point: Point) -> RestoreResult:
        """Make the files ``point``'s (pre-restore checkpoint first, at the leaf).

        Raises:
            CheckpointError: checkpoints are off, or the store lacks the point's files.
        """
        files = await self.files()
        if files is None:
            raise CheckpointError(self._off_reason or "Checkpoints are off")
        return await files.restore(point)

    async def _skipped_notice(self, paths: list[str]) -> None:
        limit_mb = self._host.settings.checkpoints.max_file_bytes / (1024 * 1024)
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        await self._host.emit(
            SessionNoticeEvent(
                message=f"Checkpoints skip files over {limit_mb:g} MB (never saved, never "
                f"restored): {shown}",
                level="info",
            )
        )

    async def _turn_off(self, message: str) -> None:
        self._off_reason = message
        await self._host.emit(SessionNoticeEvent(message=message, level="warning"))


async def _discard(ahead: asyncio.Future[Prepared] | None) -> None:
    """Drop a snapshot no checkpoint wants: cancelled if running (its git is ended, the
    store's lock let go), its failure, if any, forgotten (the next checkpoint says it)."""
    if ahead is None:
        return
    ahead.cancel()
    with suppress(asyncio.CancelledError, CheckpointError, OSError):
        await ahead
