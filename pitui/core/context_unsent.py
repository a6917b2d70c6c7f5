"""What never reaches the model, and why: the other half of the context report.

Two sources: transcript messages the request's conversion left out (``!!`` commands,
custom messages with ``excludeFromContext``), and entries of the session path that are not
in the transcript at all (summarised away by a compaction, settings, labels, extension
state). Entries are read raw, from part of their lines (``row_fields``), so a 100k-entry
path costs no validation and no full parse.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeAlias

import msgspec

from pitui.agent.messages import AgentMessage
from pitui.core.checkpoints.points import CHECKPOINT_TYPE
from pitui.core.compaction.tokens import estimate_raw_entry, estimate_tokens
from pitui.core.messages import BashExecutionMessage, CustomMessage, SystemMessage, text_of
from pitui.core.sanitize import inert
from pitui.core.session.bulk import bulk_allocation
from pitui.core.session.context import SessionContext
from pitui.core.session.row_fields import row_fields
from pitui.core.session.table import EntryTable
from pitui.core.session.tree_rows import row_text, tool_calls_of

BASH_EXCLUDED = "!! command: shown to you, kept from the model"
CUSTOM_EXCLUDED = "custom message with excludeFromContext: kept from the model"
PI_SYSTEM = "pi's; not sent, pitui sends its own"
"""pi 1.6's record of its system prompt and tools in the transcript."""
SUMMARISED = "summarised away by compaction {compaction}: the model sees its summary"
EARLIER_COMPACTION = "earlier compaction: the latest compaction's summary replaces it"
_ENTRY_REASONS = {
    "model_change": "model change: chooses the model, is not a message",
    "thinking_level_change": "thinking level change: sets the reasoning effort, not a message",
    "label": "label: for the tree only",
    "session_info": "session name: for the lists only",
    "custom": "extension state (custom entry): never sent",
    "branch_summary": "empty branch summary: contributes nothing",
    "message": "not in the agent's transcript (a failed reply taken out for a retry)",
}
_UNKNOWN_ENTRY = "entry type the context does not use"
CHECKPOINT_REASON = "file checkpoint (pitui): the project's files at this point, never sent"
ToolCallRef: TypeAlias = tuple[str, Mapping[str, Any]]


class NotSent(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    """Something in the session that the next request does not carry.

    A msgspec struct: immutable, built ~100k times for a long compacted path (a seventh
    of a frozen dataclass's cost), and encoded straight to its camelCase JSON by
    ``msgspec.json.encode`` (a writer needs no dict per row). Strings and integers only:
    nothing for the cyclic collector to track."""

    entry_id: str | None
    kind: str
    """The entry type, or for a message entry its role."""
    reason: str
    tokens: int
    """What it would cost if it were sent (chars/4)."""
    preview: str

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON (``pitui session context --json``)."""
        return {
            "entryId": self.entry_id,
            "kind": self.kind,
            "reason": self.reason,
            "tokens": self.tokens,
            "preview": self.preview,
        }


def flat(text: str, width: int = 80) -> str:
    """``text`` on one line, inert (no terminal control), cut to ``width`` with an ellipsis."""
    return flat_inert(inert(text), width)


def flat_inert(text: str, width: int = 80) -> str:
    """:func:`flat` of text that is inert already (a tree row)."""
    if text.isascii() and text.isprintable() and "  " not in text:
        # One line with single spaces already (the usual row): only the ends may change.
        line = text.strip(" ")
    else:
        line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _message_reason(message: AgentMessage) -> str:
    if isinstance(message, BashExecutionMessage) and message.exclude_from_context:
        return BASH_EXCLUDED
    if isinstance(message, CustomMessage) and message.exclude_from_context:
        return CUSTOM_EXCLUDED
    if isinstance(message, SystemMessage):
        return PI_SYSTEM
    return f"left out by the request's conversion (role {message.role})"


def _message_preview(message: AgentMessage) -> str:
    if isinstance(message, BashExecutionMessage):
        return flat(f"$ {message.command}")
    if isinstance(message, SystemMessage):
        return flat(f"[system prompt: {message.summary()}]", 200)
    return flat(text_of(getattr(message, "content", None)))


def not_sent_messages(
    transcript: Sequence[AgentMessage],
    entry_ids: Sequence[str | None],
    sent: Collection[int],
) -> list[NotSent]:
    """Transcript messages no request message was made from."""
    return [
        NotSent(
            entry_id=entry_ids[index],
            kind=message.role,
            reason=_message_reason(message),
            tokens=estimate_tokens(message),
            preview=_message_preview(message),
        )
        for index, message in enumerate(transcript)
        if index not in sent
    ]


def _remember_calls(
    raw: Mapping[str, Any], calls: dict[str, tuple[str, Mapping[str, Any]]]
) -> None:
    message = raw.get("message")
    if isinstance(message, dict):
        for call_id, name, args in tool_calls_of(message):
            calls[call_id] = (name, args)


def _summarised_reason(context: SessionContext) -> str:
    return SUMMARISED.format(compaction=context.entry_ids[0] if context.entry_ids else "?")


def _entry_reason(kind: str, summarised: str | None, raw: Mapping[str, Any]) -> str:
    if kind == "custom" and raw.get("customType") == CHECKPOINT_TYPE:
        return CHECKPOINT_REASON
    if summarised is not None and kind in ("message", "custom_message", "branch_summary"):
        return summarised  # one string for the tens of thousands of entries it covers
    if kind == "compaction":
        return EARLIER_COMPACTION
    return _ENTRY_REASONS.get(kind, _UNKNOWN_ENTRY)


def not_sent_entries(
    table: EntryTable, context: SessionContext, in_transcript: Collection[str | None]
) -> list[NotSent]:
    """Entries of the path to ``context``'s leaf that no transcript message stands for."""
    leaf = table.index.get(context.leaf_id) if context.leaf_id is not None else None
    if leaf is None:
        return []
    summarised = set(context.summarised_ids)
    summarised_reason = _summarised_reason(context)
    calls: dict[str, ToolCallRef] = {}
    found: list[NotSent] = []
    ids, types, roles = table.ids, table.types, table.roles
    with bulk_allocation():  # ~100k rows, no cycles: nothing for the collector to find
        for position in table.path_positions(leaf):
            entry_id = ids[position]
            if entry_id in in_transcript:
                continue
            raw = row_fields(table, position)
            kind = types[position]
            role = roles[position]
            if role == "assistant":
                _remember_calls(raw, calls)
            found.append(
                NotSent(
                    entry_id,
                    role if kind == "message" and role else kind,
                    _entry_reason(kind, summarised_reason if entry_id in summarised else None, raw),
                    estimate_raw_entry(raw),
                    flat_inert(row_text(raw, calls).plain),
                )
            )
    return found
