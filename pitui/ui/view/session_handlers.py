"""Reducer handlers for the session-level events the AgentSession adds (retry, compaction,
denials, user ``!`` commands). Wording follows pi's interactive mode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeAlias

from pitui.core.session_events import (
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    SessionChangedEvent,
    SessionNoticeEvent,
    ToolDeniedEvent,
    UserBashStartEvent,
    UserBashUpdateEvent,
)
from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.events import (
    ApprovalResolved,
    BashOutput,
    BashStarted,
    CompactionDone,
    ProgressEnded,
    ProgressStarted,
)
from pitui.ui.view.progress import COMPACTION, PROGRESS_HANDLERS
from pitui.ui.view.state import TOOL_DONE_STATES
from pitui.ui.view.ui_handlers import UI_HANDLERS

Handler: TypeAlias = Callable[[ChatState, Any], ChatState]
WORKING = "Working..."
INTERRUPT_KEY = "escape"


def _retry_start(state: ChatState, event: AutoRetryStartEvent) -> ChatState:
    seconds = round(event.delay_ms / 1000)
    text = (
        f"Retrying ({event.attempt}/{event.max_attempts}) in {seconds}s... "
        f"({INTERRUPT_KEY} to cancel)"
    )
    return replace(state, activity=text)


def _retry_end(state: ChatState, event: AutoRetryEndEvent) -> ChatState:
    state = replace(state, activity=WORKING if state.busy else None)
    if event.success:
        return state
    error = event.final_error or "Unknown error"
    return items.notice(
        state, f"Error: Retry failed after {event.attempt} attempts: {error}", "error"
    )


COMPACTION_TITLES = {
    "manual": "Compacting context",
    "threshold": "Auto-compacting context",
    "overflow": "Context overflow detected, auto-compacting",
}
COMPACTION_DETAILS = {
    "threshold": "the context is near the model's window",
    "overflow": "the model refused the context as too long; the turn is retried afterwards",
}


def _compaction_start(state: ChatState, event: AutoCompactionStartEvent) -> ChatState:
    state = replace(state, activity=None)
    started = ProgressStarted(
        COMPACTION, COMPACTION_TITLES[event.reason], detail=COMPACTION_DETAILS[event.reason]
    )
    return PROGRESS_HANDLERS[ProgressStarted](state, started)


def _result_field(result: Any, *names: str) -> Any:
    for name in names:
        value = result.get(name) if isinstance(result, dict) else getattr(result, name, None)
        if value is not None:
            return value
    return None


def compaction_done(event: AutoCompactionEndEvent) -> CompactionDone | None:
    """The summary card's event of a successful automatic compaction."""
    if event.result is None:
        return None
    tokens = _result_field(event.result, "tokensBefore", "tokens_before")
    summary = _result_field(event.result, "summary")
    return CompactionDone(str(summary or ""), tokens if isinstance(tokens, int) else 0)


def _compaction_end(state: ChatState, event: AutoCompactionEndEvent) -> ChatState:
    state = replace(state, activity=WORKING if state.busy else None)
    done = compaction_done(event)
    if done is not None:
        return PROGRESS_HANDLERS[CompactionDone](state, done)
    if event.aborted:
        ended = ProgressEnded(COMPACTION, "Auto-compaction cancelled")
    elif event.error_message:
        ended = ProgressEnded(COMPACTION, event.error_message, "error")
    else:
        ended = ProgressEnded(COMPACTION)
    return PROGRESS_HANDLERS[ProgressEnded](state, ended)


def _session_notice(state: ChatState, event: SessionNoticeEvent) -> ChatState:
    return items.notice(state, event.message, event.level)


def _denied(state: ChatState, event: ToolDeniedEvent) -> ChatState:
    state = UI_HANDLERS[ApprovalResolved](
        state, ApprovalResolved(event.tool_call_id, allowed=False, reason=event.message)
    )
    card = state.tool_card(event.tool_call_id)
    if card is not None and card.state in TOOL_DONE_STATES and card.state != "denied":
        state = items.put(state, replace(card, state="denied"))
    return state


def _bash_start(state: ChatState, event: UserBashStartEvent) -> ChatState:
    return UI_HANDLERS[BashStarted](state, BashStarted(event.command, event.exclude_from_context))


def _bash_update(state: ChatState, event: UserBashUpdateEvent) -> ChatState:
    return UI_HANDLERS[BashOutput](state, BashOutput(event.output))


def _changed(state: ChatState, event: SessionChangedEvent) -> ChatState:
    return state  # the app rebuilds the view from the session's messages


SESSION_HANDLERS: dict[type, Handler] = {
    AutoRetryStartEvent: _retry_start,
    AutoRetryEndEvent: _retry_end,
    AutoCompactionStartEvent: _compaction_start,
    AutoCompactionEndEvent: _compaction_end,
    ToolDeniedEvent: _denied,
    UserBashStartEvent: _bash_start,
    UserBashUpdateEvent: _bash_update,
    SessionChangedEvent: _changed,
    SessionNoticeEvent: _session_notice,
}
