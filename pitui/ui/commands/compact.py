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
from typing import TYPE_CHECKING

from pitui.ui.host import require_session

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.ui.host import UiHost

CANCELLED = "Compaction cancelled"


async def compact(host: UiHost, arg: str) -> None:
    """Summarise the branch into a ``compaction`` entry (``arg``: extra focus)."""
    from pitui.core.compaction.summarize import CompactionCancelled, CompactionError
    from pitui.ui.view.events import CompactionDone, ProgressEnded, ProgressStarted
    from pitui.ui.view.progress import COMPACTION
    from pitui.ui.view.session_handlers import COMPACTION_TITLES

    session = require_session(host)
    if session.compaction.is_compacting:
        await host.notice("A compaction is already running", "warning")
        return
    instructions = arg.strip() or None
    detail = f"Focus: {instructions}" if instructions else _size_detail(session)
    title = COMPACTION_TITLES["manual"]
    await host.apply([ProgressStarted(COMPACTION, title, time.monotonic(), detail)])
    try:
        result = await session.compact(instructions)
    except CompactionCancelled:
        await host.apply([ProgressEnded(COMPACTION, CANCELLED, "error")])
    except CompactionError as exc:
        await host.apply([ProgressEnded(COMPACTION, f"Compaction failed: {exc}", "error")])
    else:
        # The session's "compaction" change rebuilds the view; the card goes after it.
        host.apply_after_events([CompactionDone(result.summary, result.tokens_before)])
        host.refresh_status()
    finally:
        _deliver_queued(host, session)


def _size_detail(session: AgentSession) -> str:
    from pitui.core.compaction.tokens import estimate_context_tokens

    tokens = estimate_context_tokens(session.messages).tokens
    return f"summarising the conversation ({tokens:,} tokens in context)"


def _deliver_queued(host: UiHost, session: AgentSession) -> None:
    """Messages typed during the compaction go now (pi's flushCompactionQueue)."""
    if not session.agent.has_queued_messages():
        return
    host.run_guarded(session.continue_(), group="session")
