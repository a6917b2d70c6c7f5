"""Token and cost totals: one type for the footer's file totals and the view's live totals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ai.types import AssistantMessage


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Token and cost totals over a set of assistant messages."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    context_tokens: int | None = 0
    """Tokens of the last successful reply's context (input + output + cache), for ctx %;
    None when unknown (after a compaction, until the next reply)."""

    def plus(self, message: AssistantMessage) -> UsageTotals:
        """These totals and one reply's usage; a successful reply also sets the context."""
        u = message.usage
        context = self.context_tokens
        if message.stop_reason not in ("aborted", "error"):
            context = u.input + u.output + u.cache_read + u.cache_write
        return UsageTotals(
            input=self.input + u.input,
            output=self.output + u.output,
            cache_read=self.cache_read + u.cache_read,
            cache_write=self.cache_write + u.cache_write,
            cost=self.cost + float(u.cost.total),
            context_tokens=context,
        )
