"""Progress cards: a long operation shown in the conversation while it runs (pure).

One card per operation *key* at a time (``"compaction"``, ``"branch_summary"`` …): its
title, the time it has taken (the widget ticks it), what it is doing and how to cancel
it. Apply :class:`ProgressStarted` when the operation starts and :class:`ProgressEnded`
when it ends (whatever the outcome), then show the outcome (a summary card, a notice)
with its own events. A key started again while its card runs retitles that card. The
widget is :class:`pitui.ui.widgets.progress_card.ProgressCard`; cancelling is the app's
(see :class:`pitui.ui.operations.Operations`).

Compaction's own outcome event is here too: :class:`CompactionDone` ends the card and
adds the collapsed ``Compacted from N tokens`` card (open when Ctrl+O opened tool
output), and the context figure becomes unknown until the next reply (PI_SPEC §6.9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from pitui.ui.view import items
from pitui.ui.view.evolve import replace
from pitui.ui.view.state import ChatState, CompactionItem, ProgressItem

Handler: TypeAlias = Callable[[ChatState, Any], ChatState]
CANCEL_HINT = "Esc to cancel"


@dataclass(frozen=True, slots=True)
class ProgressStarted:
    """An operation started: show its card at the end of the conversation."""

    key: str
    title: str
    started_at: float | None = None
    """``time.monotonic()`` at the start (None: when the card first shows)."""
    detail: str = ""
    cancel_hint: str = CANCEL_HINT


@dataclass(frozen=True, slots=True)
class ProgressEnded:
    """The operation ended (done, failed or cancelled): its card goes away."""

    key: str


@dataclass(frozen=True, slots=True)
class CompactionDone:
    """A compaction was written: end its card and show the summary card."""

    summary: str
    tokens_before: int


def running(state: ChatState, key: str) -> ProgressItem | None:
    """The card of operation ``key`` while it runs."""
    prefix = f"progress:{key}:"
    for position in range(len(state.items) - 1, -1, -1):
        item = state.items[position]
        if isinstance(item, ProgressItem) and item.id.startswith(prefix) and not item.finished:
            return item
    return None


def any_running(state: ChatState) -> bool:
    """Whether some operation's card is up (new messages wait for it)."""
    return any(isinstance(i, ProgressItem) and not i.finished for i in reversed(state.items))


def elapsed_text(seconds: float) -> str:
    """``4s``, ``1m 05s``, ``1h 02m``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def _started(state: ChatState, event: ProgressStarted) -> ChatState:
    card = running(state, event.key)
    if card is not None:
        again = replace(card, title=event.title, detail=event.detail, cancel_hint=event.cancel_hint)
        return items.put(state, again)
    seq = state.seq + 1
    card = ProgressItem(
        f"progress:{event.key}:{seq}",
        event.title,
        event.started_at,
        event.detail,
        event.cancel_hint,
    )
    return items.add(replace(state, seq=seq), card)


def _ended(state: ChatState, event: ProgressEnded) -> ChatState:
    card = running(state, event.key)
    return state if card is None else items.put(state, replace(card, finished=True))


def _compaction_done(state: ChatState, event: CompactionDone) -> ChatState:
    state = _ended(state, ProgressEnded("compaction"))
    state, mid = items.next_id(state)
    card = CompactionItem(mid, event.summary, event.tokens_before, expanded=state.tools_expanded)
    state = replace(state, usage=replace(state.usage, context_tokens=None))
    return items.add(state, card)


PROGRESS_HANDLERS: dict[type, Handler] = {
    ProgressStarted: _started,
    ProgressEnded: _ended,
    CompactionDone: _compaction_done,
}
