"""Counts for ``/session`` and the export header (pi's session info, PI_SPEC §9.1).

:func:`entry_stats` is the one count of a set of entries: message entries by role, tool
calls, and usage (every assistant reply, and the usage a tool result or a compaction or
branch summary carries), as pi 1.6's ``getSessionStats``. :func:`branch_stats` counts
the branch (root to leaf, compacted part included); :func:`message_stats` a transcript.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pitui.agent.messages import AgentMessage
from pitui.ai.types import AssistantMessage, ToolCall
from pitui.core.usage import UsageTotals, plus_usage_json

if TYPE_CHECKING:
    from pitui.core.session.table import EntryTable

ROLE_LABELS: dict[str, str] = {
    "user": "User",
    "assistant": "Assistant",
    "toolResult": "Tool Results",
    "bashExecution": "Bash",
    "custom": "Custom",
    "compactionSummary": "Compaction summaries",
    "branchSummary": "Branch summaries",
}
"""Roles in the order they are listed (others follow, by name)."""


@dataclass(frozen=True, slots=True)
class MessageStats:
    """Messages by role, tool calls and summed usage of a transcript."""

    by_role: dict[str, int] = field(default_factory=dict)
    tool_calls: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)

    @property
    def total(self) -> int:
        """All messages."""
        return sum(self.by_role.values())

    def count(self, role: str) -> int:
        """Messages of ``role``."""
        return self.by_role.get(role, 0)

    @property
    def total_tokens(self) -> int:
        """Input, output and cache tokens together (pi's ``Total``)."""
        u = self.usage
        return u.input + u.output + u.cache_read + u.cache_write


def branch_stats(table: EntryTable, leaf_id: str | None) -> MessageStats:
    """:func:`entry_stats` of the branch ending at ``leaf_id`` (everything before a
    compaction included: the figures pi's ``/session`` shows for a one-branch file)."""
    leaf = None if leaf_id is None else table.index.get(leaf_id)
    return entry_stats(table, [] if leaf is None else table.path_positions(leaf))


def entry_stats(table: EntryTable, positions: Iterable[int]) -> MessageStats:
    """Counts over the entries at ``positions`` (read from their JSON, no validation)."""
    roles: dict[str, int] = {}
    calls = 0
    usage = UsageTotals()
    for position in positions:
        kind = table.types[position]
        if kind in ("compaction", "branch_summary", "usage"):
            usage = _with_usage(usage, table.raw(position).get("usage"))
        if kind != "message":
            continue
        role = table.roles[position] or "unknown"
        roles[role] = roles.get(role, 0) + 1
        if role not in ("assistant", "toolResult"):
            continue
        message = table.raw(position).get("message")
        if not isinstance(message, Mapping):
            continue
        usage = _with_usage(usage, message.get("usage"))
        content = message.get("content")
        if role == "assistant" and isinstance(content, list):
            calls += sum(isinstance(b, Mapping) and b.get("type") == "toolCall" for b in content)
    return MessageStats(_ordered(roles), calls, usage)


def _with_usage(totals: UsageTotals, usage: Any) -> UsageTotals:
    return plus_usage_json(totals, usage) if isinstance(usage, Mapping) else totals


def _ordered(roles: dict[str, int]) -> dict[str, int]:
    order = [r for r in ROLE_LABELS if r in roles] + sorted(
        r for r in roles if r not in ROLE_LABELS
    )
    return {role: roles[role] for role in order}


def context_unknown(table: EntryTable, leaf_id: str | None) -> bool:
    """Whether the context use at ``leaf_id`` is unknown (pi's ``?``, PI_SPEC §6.9): the
    branch has a compaction and no successful reply with usage after it. The last reply's
    usage then measures the context before the compaction (also in a reopened file, where
    kept replies from before it follow its summary in the transcript)."""
    leaf = None if leaf_id is None else table.index.get(leaf_id)
    path = [] if leaf is None else table.path_positions(leaf)
    last = next(
        (i for i in range(len(path) - 1, -1, -1) if table.types[path[i]] == "compaction"), None
    )
    if last is None:
        return False
    for position in path[last + 1 :]:
        if table.roles[position] != "assistant":
            continue
        message = table.raw(position).get("message")
        if not isinstance(message, Mapping) or message.get("stopReason") in ("error", "aborted"):
            continue
        totals = _with_usage(UsageTotals(), message.get("usage"))
        if totals.input + totals.output + totals.cache_read + totals.cache_write > 0:
            return False
    return True


def message_stats(messages: Sequence[AgentMessage]) -> MessageStats:
    """Count ``messages`` (pi's ``/session`` numbers)."""
    roles: dict[str, int] = {}
    calls = 0
    usage = UsageTotals()
    for message in messages:
        roles[message.role] = roles.get(message.role, 0) + 1
        if isinstance(message, AssistantMessage):
            calls += sum(isinstance(block, ToolCall) for block in message.content)
            usage = usage.plus(message)
    return MessageStats(_ordered(roles), calls, usage)
