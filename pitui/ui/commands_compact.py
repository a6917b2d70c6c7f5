"""``/compact [instructions]`` (and the palette entry): compact now, with a progress card.

While the summary is generated the conversation shows a card with the time it takes;
Esc cancels and nothing is written. Then the view is rebuilt from the compacted
transcript with the ``Compacted from N tokens`` card at the bottom, and the status
bar's context figure shows ``?`` until the next reply (PI_SPEC §6.9). Messages sent
meanwhile were queued and are delivered afterwards (as pi). Failures are worded as pi
words them (``Compaction failed: Nothing to compact (session too small)`` …).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.ui.app import PituiApp
    from pitui.ui.commands import Commands
    from pitui.ui.view.reducer import AnyEvent

CANCELLED = "Compaction cancelled"


async def compact_command(commands: Commands, arg: str) -> None:
    """Summarise the branch into a ``compaction`` entry (``arg``: extra focus)."""
    from pitui.core.compaction.summarize import CompactionCancelled, CompactionError
    from pitui.ui.view.events import CompactionDone, ProgressEnded, ProgressStarted
    from pitui.ui.view.progress import COMPACTION
    from pitui.ui.view.session_handlers import COMPACTION_TITLES

    session = commands.require_session()
    app = commands.app
    if session.compaction.is_compacting:
        await commands.notice("A compaction is already running", "warning")
        return
    instructions = arg.strip() or None
    detail = f"Focus: {instructions}" if instructions else _size_detail(session)
    title = COMPACTION_TITLES["manual"]
    await app.apply([ProgressStarted(COMPACTION, title, time.monotonic(), detail)])
    try:
        result = await session.compact(instructions)
    except CompactionCancelled:
        await app.apply([ProgressEnded(COMPACTION, CANCELLED, "error")])
    except CompactionError as exc:
        await app.apply([ProgressEnded(COMPACTION, f"Compaction failed: {exc}", "error")])
    else:
        # The session's "compaction" change rebuilds the view; the card goes after it.
        apply_after_events(app, [CompactionDone(result.summary, result.tokens_before)])
        commands.refresh_status()
    finally:
        _deliver_queued(app, session)


def _size_detail(session: AgentSession) -> str:
    from pitui.core.compaction.tokens import estimate_context_tokens

    tokens = estimate_context_tokens(session.messages).tokens
    return f"summarising the conversation ({tokens:,} tokens in context)"


def apply_after_events(app: PituiApp, events: Sequence[AnyEvent]) -> None:
    """Apply ``events`` after the session events sent so far (e.g. after a rebuild)."""
    if app.bridge is not None:
        app.bridge.flush()  # posts the pending batch; this queues behind it
    app.call_later(app.apply, list(events))


def _deliver_queued(app: PituiApp, session: AgentSession) -> None:
    """Messages typed during the compaction go now (pi's flushCompactionQueue)."""
    if not session.agent.has_queued_messages():
        return
    app.run_worker(app.commands.guarded(session.continue_()), group="session")
