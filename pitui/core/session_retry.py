"""Automatic retries of transient provider errors (pi's ``retry`` settings).

After a run, :class:`SessionRetry` looks at the last reply: a retryable error (overloaded,
rate limited, a 5xx …) leaves the model's context (it stays in the file), and after
``baseDelayMs × 2^(attempt−1)`` the model runs again, up to ``maxRetries`` times, with
``auto_retry_start`` / ``auto_retry_end`` events. It works through a :class:`RetryHost`,
not the façade.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from pitui.ai.abort import AbortSignal
from pitui.ai.types import AssistantMessage
from pitui.core.retry import is_retryable_error, retry_delay_ms
from pitui.core.session_events import AutoRetryEndEvent, AutoRetryStartEvent

if TYPE_CHECKING:
    from pitui.agent.agent import Agent
    from pitui.agent.messages import AgentMessage
    from pitui.ai.types import Model
    from pitui.core.session_events import SessionEvent
    from pitui.core.settings import Settings


class RetryHost(Protocol):
    """What retrying needs from the session it works for."""

    agent: Agent
    settings: Settings

    @property
    def model(self) -> Model | None: ...

    @property
    def messages(self) -> list[AgentMessage]: ...

    async def emit(self, event: SessionEvent) -> None: ...


class SessionRetry:
    """Retries of one session's failed replies, with a cancellable wait."""

    def __init__(self, host: RetryHost) -> None:
        self._host = host
        self._wait: AbortSignal | None = None

    def abort(self) -> None:
        """Cancel a retry wait (Esc): the run ends with the error."""
        if self._wait is not None:
            self._wait.abort("aborted by user")

    async def after_run(self) -> None:
        """Retry the last reply while it is a transient error and attempts remain."""
        host = self._host
        policy = host.settings.retry
        attempt = 0
        while policy.enabled:
            last = self._failed_reply()
            if last is None:
                if attempt:
                    await host.emit(AutoRetryEndEvent(success=True, attempt=attempt))
                return
            if attempt >= policy.max_retries:
                final = AutoRetryEndEvent(
                    success=False, attempt=attempt, final_error=last.error_message
                )
                await host.emit(final)
                return
            attempt += 1
            if not await self._wait_before_retry(last, attempt):
                return
            await host.agent.continue_()

    def _failed_reply(self) -> AssistantMessage | None:
        """The last message, when it is a retryable error whose turn can run again."""
        messages = self._host.messages
        last = messages[-1] if messages else None
        if not isinstance(last, AssistantMessage):
            return None
        window = self._host.model.context_window if self._host.model else None
        if not is_retryable_error(last, window):
            return None
        # Not when a reply precedes it: the failure came after the model had answered
        # (saving the reply failed), and a context may not end with the model's message.
        if len(messages) < 2 or isinstance(messages[-2], AssistantMessage):
            return None
        return last

    async def _wait_before_retry(self, failed: AssistantMessage, attempt: int) -> bool:
        host = self._host
        policy = host.settings.retry
        delay = retry_delay_ms(policy.base_delay_ms, attempt)
        # The failed reply stays in the file but leaves the model's context.
        host.agent.replace_messages([m for m in host.messages if m is not failed])
        await host.emit(
            AutoRetryStartEvent(
                attempt=attempt,
                max_attempts=policy.max_retries,
                delay_ms=delay,
                error_message=failed.error_message or "",
            )
        )
        signal = self._wait = AbortSignal()
        try:
            await asyncio.wait_for(signal.wait(), delay / 1000)
        except TimeoutError:
            return True
        finally:
            self._wait = None
        await host.emit(
            AutoRetryEndEvent(success=False, attempt=attempt, final_error="Retry cancelled")
        )
        return False
