"""Counts over a transcript for ``/session`` (pi's session info, PI_SPEC §9.1).

pi counts over the current branch's messages (what the model sees): messages by role,
tool calls, and the usage of every assistant reply on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pitui.agent.messages import AgentMessage
from pitui.ai.types import AssistantMessage, ToolCall
from pitui.core.usage import UsageTotals

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
    order = [r for r in ROLE_LABELS if r in roles] + sorted(
        r for r in roles if r not in ROLE_LABELS
    )
    return MessageStats({role: roles[role] for role in order}, calls, usage)
