"""The façade's compaction (the compaction parts of pi's AgentSession).

:class:`SessionCompaction` does manual ``compact`` with pi's error texts, and the
automatic check after each run and before each prompt (threshold and overflow recovery,
with ``auto_compaction_start`` / ``auto_compaction_end`` events). After a compaction the
agent's messages are rebuilt from the session context. It works through a
:class:`CompactionHost` (what :class:`~pitui.core.agent_session.AgentSession` offers),
not the façade itself, so the two modules do not import each other. Navigation with
branch summaries is :mod:`pitui.core.session_navigation`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pitui.agent.agent import Agent, AgentError
from pitui.agent.events import MessageEndEvent, MessageStartEvent
from pitui.agent.messages import AgentMessage
from pitui.ai.abort import AbortSignal
from pitui.ai.models import ModelRegistry
from pitui.ai.overflow import is_context_overflow
from pitui.ai.types import AssistantMessage, Model, UserMessage
from pitui.core.compaction.tokens import (
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_messages_tokens,
    estimate_raw_entry,
)
from pitui.core.compaction.window import FittedSettings, fit_to_window
from pitui.core.messages import iso_to_ms
from pitui.core.session.store import SessionStore
from pitui.core.session_events import (
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    SessionChangedEvent,
    SessionEvent,
    SessionNoticeEvent,
)
from pitui.core.settings import CompactionSettings, Settings
from pitui.errors import PituiError

if TYPE_CHECKING:
    from pitui.core.compaction.cut import CompactionPreparation
    from pitui.core.compaction.summarize import CompactionResult

__all__ = ["CompactionHost", "SessionCompaction"]

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
RETRY_DELAY_S = 0.1
"""pi continues 100 ms after an overflow recovery (or with queued messages)."""

Reason = Literal["threshold", "overflow"]
_FRESH_START_KINDS = frozenset({"new", "resume", "fork"})


class CompactionHost(Protocol):
    """What compaction needs from the session it works for."""

    store: SessionStore
    settings: Settings
    registry: ModelRegistry
    agent: Agent

    @property
    def model(self) -> Model | None: ...

    @property
    def messages(self) -> list[AgentMessage]: ...

    def abort(self) -> None: ...

    async def wait_for_idle(self) -> None: ...

    def rebuild_from_session(self) -> None: ...

    async def emit(self, event: SessionEvent) -> None: ...

    async def continue_(self) -> None: ...

    def subscribe(
        self, listener: Callable[[SessionEvent], Awaitable[None] | None]
    ) -> Callable[[], None]: ...


def result_json(result: CompactionResult) -> dict[str, Any]:
    """A compaction result as pi's events carry it."""
    return {
        "summary": result.summary,
        "firstKeptEntryId": result.first_kept_entry_id,
        "tokensBefore": result.tokens_before,
        "details": result.details,
    }


class SessionCompaction:
    """Compaction state of one session."""

    def __init__(self, session: CompactionHost) -> None:
        self._session = session
        self._overflow_recovery_attempted = False
        self._last_assistant: AssistantMessage | None = None
        self._manual: AbortSignal | None = None
        self._auto: AbortSignal | None = None
        self._noticed: set[tuple[str, str, int]] = set()
        """Models whose fitted settings were announced (once each)."""
        self._stalled_until: int | None = None
        """After a compaction that did not shrink the context: no threshold compaction
        until the context is larger than this."""
        session.subscribe(self._on_event)

    @property
    def is_compacting(self) -> bool:
        """Whether a compaction is running."""
        return self._manual is not None or self._auto is not None

    def abort(self) -> None:
        """Cancel a running compaction (manual or automatic)."""
        for signal in (self._manual, self._auto):
            if signal is not None:
                signal.abort("compaction cancelled")

    def _on_event(self, event: SessionEvent) -> None:
        if isinstance(event, SessionChangedEvent) and event.kind in _FRESH_START_KINDS:
            self._stalled_until = None
        elif isinstance(event, MessageStartEvent) and isinstance(event.message, UserMessage):
            self._overflow_recovery_attempted = False
        elif isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            self._last_assistant = event.message
            if event.message.stop_reason != "error":
                self._overflow_recovery_attempted = False

    # ------------------------------------------------------------------ manual

    async def compact(self, custom_instructions: str | None = None) -> CompactionResult:
        """Abort any run, summarise the branch, append the entry, rebuild the transcript.

        Raises:
            CompactionError: ``No model selected``, ``No API key for <provider>``,
                ``Already compacted``, ``Nothing to compact (session too small)``,
                ``Summarization failed: …``.
            CompactionCancelled: ``Compaction cancelled`` (see :meth:`abort`).
        """
        # The compaction code itself is imported on first use, like the other entry points.
        from pitui.core.compaction.apply import compact_store
        from pitui.core.compaction.summarize import CompactionError

        session = self._session
        session.abort()
        await session.wait_for_idle()
        signal = self._manual = AbortSignal()
        try:
            model = session.model
            if model is None:
                raise CompactionError("No model selected")
            api_key = await session.registry.get_api_key(model)
            if not api_key:
                raise CompactionError(f"No API key for {model.provider}")
            settings = (await self.fitted_settings()).settings
            result = await compact_store(
                session.store,
                settings,
                model,
                api_key,
                custom_instructions,
                signal,
                retry=session.settings.retry,
            )
        finally:
            self._manual = None
        self._stalled_until = None
        session.rebuild_from_session()
        await session.emit(SessionChangedEvent(kind="compaction"))
        return result

    async def fitted_settings(self) -> FittedSettings:
        """The compaction settings for the current model's window (small windows clamped,
        see :mod:`pitui.core.compaction.window`); the first time a model's settings are
        clamped, a ``session_notice`` says so."""
        session = self._session
        model = session.model
        window = model.context_window if model is not None else 0
        fitted = fit_to_window(session.settings.compaction, window)
        if fitted.notice is not None and model is not None:
            key = (model.provider, model.id, window)
            if key not in self._noticed:
                self._noticed.add(key)
                await session.emit(SessionNoticeEvent(message=fitted.notice, level="warning"))
        return fitted

    # ------------------------------------------------------------------ automatic

    async def after_run(self) -> None:
        """Check the run's last reply (aborted ones skipped): threshold or overflow."""
        message, self._last_assistant = self._last_assistant, None
        if message is not None:
            await self._check(message, skip_aborted=True)

    async def before_prompt(self) -> None:
        """Check the transcript's last reply (aborted included) before a new prompt."""
        for message in reversed(self._session.messages):
            if isinstance(message, AssistantMessage):
                await self._check(message, skip_aborted=False)
                return

    def _latest_compaction_ms(self) -> int | None:
        table = self._session.store.table
        leaf = self._session.store.get_leaf_id()
        position = None if leaf is None else table.index.get(leaf)
        if position is None:
            return None
        for p in reversed(table.path_positions(position)):
            if table.types[p] == "compaction":
                stamp = table.raw(p).get("timestamp")
                return iso_to_ms(stamp) if isinstance(stamp, str) else 0
        return None

    async def _check(self, message: AssistantMessage, *, skip_aborted: bool) -> None:
        session = self._session
        if not session.settings.compaction.enabled:
            return
        if skip_aborted and message.stop_reason == "aborted":
            return
        fitted = await self.fitted_settings()
        model = session.model
        window = fitted.window
        same_model = model is not None and (message.provider, message.model) == (
            model.provider,
            model.id,
        )
        compacted_at = self._latest_compaction_ms()
        if compacted_at is not None and message.timestamp <= compacted_at:
            return  # usage from before the latest compaction is stale
        if same_model and is_context_overflow(message, window):
            await self._recover_overflow()
            return
        tokens = self._context_tokens(message, compacted_at)
        if tokens is None or tokens <= fitted.threshold:
            return
        if self._stalled_until is not None and tokens <= self._stalled_until:
            return  # the last compaction gained nothing; wait until the context grows
        await self._run_auto("threshold", will_retry=False)

    def _context_tokens(self, message: AssistantMessage, compacted_at: int | None) -> int | None:
        if message.stop_reason != "error":
            return calculate_context_tokens(message.usage)
        # An error reply has no usage: estimate from the last good one, if it is fresh.
        messages = self._session.messages
        estimate = estimate_context_tokens(messages)
        if estimate.last_usage_index is None:
            return None
        source = messages[estimate.last_usage_index]
        stale = isinstance(source, AssistantMessage) and source.timestamp <= (compacted_at or -1)
        if compacted_at is not None and stale:
            return None
        return estimate.tokens

    async def _recover_overflow(self) -> None:
        session = self._session
        if self._overflow_recovery_attempted:
            await session.emit(AutoCompactionEndEvent(error_message=OVERFLOW_RECOVERY_FAILED))
            return
        self._overflow_recovery_attempted = True
        messages = session.messages
        if messages and isinstance(messages[-1], AssistantMessage):
            # The failed reply stays in the file but leaves the retried context.
            session.agent.replace_messages(messages[:-1])
        await self._run_auto("overflow", will_retry=True)

    async def _run_auto(self, reason: Reason, *, will_retry: bool) -> None:
        """An automatic compaction with its start/end events (none when there is no model,
        no key or nothing to compact, as pi 1.6)."""
        from pitui.core.compaction.apply import compact_store  # compaction code: on first use
        from pitui.core.compaction.summarize import CompactionCancelled

        session = self._session
        prepared = await self._prepare_auto()
        if prepared is None:
            return
        settings, preparation, model, api_key = prepared
        await session.emit(AutoCompactionStartEvent(reason=reason))
        before = estimate_messages_tokens(session.messages)
        signal = self._auto = AbortSignal()
        try:
            result = await compact_store(
                session.store,
                settings,
                model,
                api_key,
                signal=signal,
                preparation=preparation,
                retry=session.settings.retry,
            )
        except CompactionCancelled:
            await session.emit(AutoCompactionEndEvent(aborted=True))
            return
        except (PituiError, OSError) as exc:
            prefix = (
                "Context overflow recovery failed"
                if reason == "overflow"
                else ("Auto-compaction failed")
            )
            await session.emit(AutoCompactionEndEvent(error_message=f"{prefix}: {exc}"))
            return
        finally:
            self._auto = None
        session.rebuild_from_session()
        self._note_gain(before, preparation, result)
        await session.emit(
            AutoCompactionEndEvent(result=result_json(result), will_retry=will_retry)
        )
        await self._continue_after(will_retry)

    async def _prepare_auto(
        self,
    ) -> tuple[CompactionSettings, CompactionPreparation, Model, str] | None:
        """Settings, preparation, model and key of an automatic compaction; None when
        there is no model, no key or nothing to compact."""
        from pitui.core.compaction.apply import prepare_for_store  # on first use
        from pitui.core.compaction.summarize import CompactionError

        session = self._session
        model = session.model
        api_key = None if model is None else await session.registry.get_api_key(model)
        if model is None or not api_key:
            return None
        settings = (await self.fitted_settings()).settings
        try:
            preparation = prepare_for_store(session.store, settings)
        except CompactionError:
            return None
        return settings, preparation, model, api_key

    def _note_gain(
        self, before: int, preparation: CompactionPreparation, result: CompactionResult
    ) -> None:
        """Remember a compaction that did not shrink the context (estimates before and
        after), so the threshold does not fire again until the context has grown by at
        least the summary's size: compacting then has new material to gain from."""
        after = estimate_messages_tokens(self._session.messages)
        if after < before:
            self._stalled_until = None
            return
        summary = estimate_raw_entry({"type": "compaction", "summary": result.summary})
        self._stalled_until = preparation.tokens_before + summary

    async def _continue_after(self, will_retry: bool) -> None:
        session = self._session
        if will_retry:
            messages = session.messages
            last = messages[-1] if messages else None
            if isinstance(last, AssistantMessage) and last.stop_reason == "error":
                session.agent.replace_messages(messages[:-1])
        elif not session.agent.has_queued_messages():
            return
        await asyncio.sleep(RETRY_DELAY_S)
        try:
            await session.continue_()
        except AgentError:
            return  # pi ignores a continue that cannot run
