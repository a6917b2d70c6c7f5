"""Token and cost totals: one type for the footer's file totals and the view's live totals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pitui.records import Record

if TYPE_CHECKING:
    from pitui.ai.types import AssistantMessage
    from pitui.core.session.table import EntryTable


class UsageTotals(Record):
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

    def plus_json(self, message: Mapping[str, Any]) -> UsageTotals:
        """:meth:`plus` for a reply's JSON (its ``usage`` and ``stopReason``)."""
        usage = message.get("usage")
        totals = _plus_json(self, usage if isinstance(usage, Mapping) else {})
        if message.get("stopReason", "stop") in ("aborted", "error"):
            return totals
        context = (
            totals.input - self.input
            + totals.output - self.output
            + totals.cache_read - self.cache_read
            + totals.cache_write - self.cache_write
        )  # fmt: skip
        return UsageTotals(
            totals.input,
            totals.output,
            totals.cache_read,
            totals.cache_write,
            totals.cost,
            context,
        )


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def plus_usage_json(totals: UsageTotals, usage: Mapping[str, Any]) -> UsageTotals:
    """``totals`` plus one ``usage`` object as pi writes it (the context figure kept)."""
    return _plus_json(totals, usage)


def _plus_json(totals: UsageTotals, usage: Mapping[str, Any]) -> UsageTotals:
    cost = usage.get("cost")
    return UsageTotals(
        input=totals.input + int(_number(usage.get("input"))),
        output=totals.output + int(_number(usage.get("output"))),
        cache_read=totals.cache_read + int(_number(usage.get("cacheRead"))),
        cache_write=totals.cache_write + int(_number(usage.get("cacheWrite"))),
        cost=totals.cost + (_number(cost.get("total")) if isinstance(cost, Mapping) else 0.0),
        context_tokens=totals.context_tokens,
    )


class FileUsage:
    """pi's footer totals: every assistant entry of a session file, all branches.

    Read from the entries' JSON (no validation) and kept up to date incrementally:
    entries are only ever appended, so each call reads just the new ones.
    """

    def __init__(self) -> None:
        self._table: EntryTable | None = None
        self._seen = 0
        self._totals = UsageTotals()

    def of(self, table: EntryTable) -> UsageTotals:
        """The totals over ``table`` (another table than last time starts again)."""
        if table is not self._table:
            self._table, self._seen, self._totals = table, 0, UsageTotals()
        totals = self._totals
        for position in range(self._seen, len(table)):
            if table.roles[position] != "assistant":
                continue
            message = table.raw(position).get("message")
            usage = message.get("usage") if isinstance(message, Mapping) else None
            if isinstance(usage, Mapping):
                totals = _plus_json(totals, usage)
        self._seen, self._totals = len(table), totals
        return totals
