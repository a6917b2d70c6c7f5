"""The user's own ``!cmd`` in a session: run it, stream its output, add its result.

:class:`SessionBash` runs a ``!cmd`` (``!!cmd`` keeps it out of the model's context)
with ``user_bash_start`` / ``user_bash_update`` events, its output redacted. While the
agent works, the finished result is held and added just before the next prompt, so it
never lands between a tool call and its result. It works through a :class:`BashHost`,
not the façade (as retries, compaction and navigation do).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pitui.agent.agent import AgentError
from pitui.agent.events import MessageEndEvent, MessageStartEvent
from pitui.ai.abort import AbortSignal
from pitui.core.session_events import UserBashStartEvent, UserBashUpdateEvent

if TYPE_CHECKING:
    from pitui.agent.agent import Agent
    from pitui.core.messages import BashExecutionMessage
    from pitui.core.redaction import SecretRedactor
    from pitui.core.session.store import SessionStore
    from pitui.core.session_events import SessionEvent
    from pitui.core.settings import Settings

ALREADY_RUNNING = "A bash command is already running. Press Esc to cancel it first."


class BashHost(Protocol):
    """What running the user's commands needs from the session."""

    agent: Agent
    store: SessionStore
    settings: Settings
    cwd: Path
    redactor: SecretRedactor

    @property
    def is_streaming(self) -> bool: ...

    async def emit(self, event: SessionEvent) -> None: ...


class SessionBash:
    """One session's ``!`` commands: at most one running, results held during a run."""

    def __init__(self, host: BashHost) -> None:
        self._host = host
        self._signal: AbortSignal | None = None
        self._pending: list[BashExecutionMessage] = []

    def abort(self) -> None:
        """Cancel the running command (Esc)."""
        if self._signal is not None:
            self._signal.abort("aborted by user")

    async def run(self, command: str, *, exclude_from_context: bool = False) -> None:
        """Run ``command`` in the project with the user's shell.

        Raises:
            AgentError: when another ``!`` command is still running.
        """
        # The shell machinery (the bash tool's module): with the first ``!`` command only.
        from pitui.core.user_bash import run_user_bash

        host = self._host
        if self._signal is not None:
            raise AgentError(ALREADY_RUNNING)
        host.store.check_writable()
        signal = self._signal = AbortSignal()
        await host.emit(
            UserBashStartEvent(command=command, exclude_from_context=exclude_from_context)
        )
        updates: set[asyncio.Task[None]] = set()

        def on_output(text: str) -> None:
            update = UserBashUpdateEvent(output=host.redactor.text(text))
            task = asyncio.ensure_future(host.emit(update))
            updates.add(task)
            task.add_done_callback(updates.discard)

        try:
            message = await run_user_bash(
                command,
                host.cwd,
                exclude_from_context=exclude_from_context,
                shell_path=host.settings.shell_path,
                cancel=signal,
                on_output=on_output,
            )
        finally:
            self._signal = None
        message.output = host.redactor.text(message.output)
        if updates:
            await asyncio.gather(*updates)
        if host.is_streaming:
            self._pending.append(message)
            return
        await self._add(message)

    async def flush_pending(self) -> None:
        """Add the results held while the agent worked (before the next prompt)."""
        pending, self._pending = self._pending, []
        for message in pending:
            await self._add(message)

    async def _add(self, message: BashExecutionMessage) -> None:
        host = self._host
        host.agent.append_message(message)
        await host.store.append_message(message)
        await host.emit(MessageStartEvent(message=message))
        await host.emit(MessageEndEvent(message=message))
