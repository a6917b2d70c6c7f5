"""Progress cards: a long operation shown in the conversation while it runs (pure).

The API, for any operation (``"compaction"``, ``"branch_summary"`` …):

- apply :class:`~pitui.ui.view.events.ProgressStarted` when it starts: a
  :class:`~pitui.ui.view.state.ProgressItem` is added at the end of the conversation
  (title, start time, a detail line, the cancel hint); starting an operation whose card
  still runs retitles that card;
- apply :class:`~pitui.ui.view.events.ProgressEnded` when it ends, whatever the outcome:
  the card then shows ``outcome`` in its place (``Branch summary cancelled``), or goes
  away when ``outcome`` is empty and other events show the result; an end without a card
  is a plain notice;
- :func:`running` / :func:`any_running` say what runs; :func:`elapsed_text` formats the
  time the widget (:class:`pitui.ui.widgets.messages.ProgressCard`) ticks.

Cancelling is the session's (Esc: ``AgentSession.abort_compaction``, the navigation's
``abort``); this module only shows. Compaction's own outcome is here too:
:class:`~pitui.ui.view.events.CompactionDone` ends its card and adds the collapsed
``Compacted from N tokens`` card (open when Ctrl+O opened tool output), and the context
figure becomes unknown until the next reply (PI_SPEC §6.9).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.events import CompactionDone, ProgressEnded, ProgressStarted
from pitui.ui.view.evolve import replace
from pitui.ui.view.format import elapsed_text as elapsed_text
from pitui.ui.view.state import CompactionItem, ProgressItem, progress_item_id

Handler: TypeAlias = Callable[[ChatState, Any], ChatState]
COMPACTION = "compaction"
"""The operation key of compactions (manual and automatic)."""


def running(state: ChatState, operation: str) -> ProgressItem | None:
    """The card of ``operation`` while it runs (newest first; cards are at the end)."""
    prefix = f"progress:{operation}:"
    for position in range(len(state.items) - 1, -1, -1):
        item = state.items[position]
        if isinstance(item, ProgressItem) and item.id.startswith(prefix):
            return item if item.outcome is None else None
    return None


def any_running(state: ChatState) -> bool:
    """Whether some operation's card is up."""
    return any(isinstance(i, ProgressItem) and i.outcome is None for i in state.items)


def _started(state: ChatState, event: ProgressStarted) -> ChatState:
    card = running(state, event.operation)
    if card is not None:
        again = replace(card, title=event.title, detail=event.detail, cancel_hint=event.cancel_hint)
        return items.put(state, again)
    seq = state.seq + 1
    card = ProgressItem(
        progress_item_id(event.operation, seq),
        event.title,
        event.started,
        detail=event.detail,
        cancel_hint=event.cancel_hint,
    )
    return items.add(replace(state, seq=seq), card)


def _ended(state: ChatState, event: ProgressEnded) -> ChatState:
    card = running(state, event.operation)
    if card is None:
        return items.notice(state, event.outcome, event.level) if event.outcome else state
    return items.put(state, replace(card, outcome=event.outcome, level=event.level))


def _compaction_done(state: ChatState, event: CompactionDone) -> ChatState:
    state = _ended(state, ProgressEnded(COMPACTION))
    state, mid = items.next_id(state)
    card = CompactionItem(mid, event.summary, event.tokens_before, expanded=state.tools_expanded)
    state = replace(state, usage=replace(state.usage, context_tokens=None))
    return items.add(state, card)


PROGRESS_HANDLERS: dict[type, Handler] = {
    ProgressStarted: _started,
    ProgressEnded: _ended,
    CompactionDone: _compaction_done,
}
