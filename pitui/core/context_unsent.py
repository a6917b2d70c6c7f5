"""What never reaches the model, and why: the other half of the context report.

Two sources: transcript messages the request's conversion left out (``!!`` commands,
custom messages with ``excludeFromContext``), and entries of the current branch that are
not in the transcript at all (settings, labels, extension state, what a compaction
replaced). Other branches are not "not sent": they are elsewhere, and not listed.

What the compaction in effect replaced is one :class:`Compacted` row (count, id range,
estimated tokens), not an entry each: on a long session that is nearly the whole file,
and a hundred thousand rows of it tell a reader nothing. Its tokens come from the sizes of
the entries' lines (scaled by a sample's estimate), so it reads almost none of them. The
entries listed one by one are read raw, from part of their lines (``row_fields``): no
validation, no full parse.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeAlias, cast

import msgspec

from pitui.agent.messages import AgentMessage
from pitui.core.checkpoints.points import CHECKPOINT_TYPE
from pitui.core.compaction.tokens import estimate_raw_entry, estimate_tokens
from pitui.core.messages import BashExecutionMessage, CustomMessage, SystemMessage, text_of
from pitui.core.sanitize import inert
from pitui.core.session.bulk import bulk_allocation
from pitui.core.session.context import SessionContext
from pitui.core.session.row_fields import line_row_fields, row_fields
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
_REPLACED_KINDS = frozenset({"message", "custom_message", "branch_summary", "compaction"})
"""Entries a compaction's summary stands for (the others are not sent for their own reason:
settings, labels, extension state, file checkpoints)."""
_TOKEN_SAMPLES = 512
"""How many lines of a long compacted range are estimated exactly (at least; every
``len // 512``-th), the rest by their size: a range under 1,024 entries is exact."""


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


class Compacted(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    """What the compaction in effect replaced on the current branch, as one row: the
    branch's messages (and earlier compactions) before its ``firstKeptEntryId``."""

    compaction_id: str
    """The compaction whose summary the model sees instead."""
    count: int
    """How many entries it replaced."""
    first_entry_id: str
    last_entry_id: str
    tokens: int
    """What they would cost if they were sent (chars/4, estimated: see the module)."""
    earlier_compactions: int
    """How many of them are earlier compactions (whose summaries it replaced too)."""
    reason: str

    @property
    def id_range(self) -> str:
        """``first..last`` (one id when it replaced one entry)."""
        if self.first_entry_id == self.last_entry_id:
            return self.first_entry_id
        return f"{self.first_entry_id}..{self.last_entry_id}"

    def describe(self) -> str:
        """How many entries, and what they would cost: ``546 entries, ~237,984 tok``."""
        earlier = self.earlier_compactions
        among = f", {earlier:,} earlier compaction{'s' * (earlier != 1)} among them"
        plural = "y" if self.count == 1 else "ies"
        return f"{self.count:,} entr{plural}, ~{self.tokens:,} tok{among if earlier else ''}"

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON (``pitui session context --json``)."""
        return {
            "compactionId": self.compaction_id,
            "count": self.count,
            "firstEntryId": self.first_entry_id,
            "lastEntryId": self.last_entry_id,
            "tokens": self.tokens,
            "earlierCompactions": self.earlier_compactions,
            "reason": self.reason,
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


def _entry_reason(kind: str, raw: Mapping[str, Any]) -> str:
    if kind == "custom" and raw.get("customType") == CHECKPOINT_TYPE:
        return CHECKPOINT_REASON
    if kind == "compaction":
        return EARLIER_COMPACTION
    return _ENTRY_REASONS.get(kind, _UNKNOWN_ENTRY)


def estimate_range_tokens(table: EntryTable, positions: Sequence[int]) -> int:
    """:func:`estimate_raw_entry` summed over ``positions``, estimated from line sizes.

    Every ``len // _TOKEN_SAMPLES``-th line is estimated exactly (all of them in a range
    under 1,024 entries, which is then exact); the whole range's line bytes are scaled by
    the sample's tokens per byte (a session's lines are alike: the same JSON around text of
    varying length; 0.2% off on bench/gen_session.py's 100k-entry file). Entries not read
    from a line (built in this process) are estimated exactly.
    """
    step = max(1, len(positions) // _TOKEN_SAMPLES)
    exact = line_bytes = sample_bytes = sample_tokens = 0
    known = table.line_bytes(positions) if positions else None
    if known is not None:  # every one a line, its size known from loading: none touched
        line_bytes = known
        found = table.raws_at(positions[::step])
    else:
        found = table.raws_at(positions)
        try:  # every one read from a line (the usual case): sized in C, each touched once
            line_bytes = sum(map(bytes.__len__, cast("list[bytes]", found)))
        except TypeError:  # some built in this process
            line_bytes = 0
            for position, raw in zip(positions, found, strict=True):
                if raw.__class__ is bytes:
                    line_bytes += len(raw)
                else:
                    exact += estimate_raw_entry(table.raw(position))
        found = found[::step]
    for raw in found:
        if raw.__class__ is bytes:
            sample_bytes += len(raw)
            sample_tokens += estimate_raw_entry(line_row_fields(raw))
    scaled = line_bytes * sample_tokens // sample_bytes if sample_bytes else 0
    return exact + scaled


def compacted_range(
    table: EntryTable, context: SessionContext, replaced: Sequence[int]
) -> Compacted | None:
    """The row for what ``context``'s compaction replaced (``replaced``: those positions)."""
    if not replaced or not context.entry_ids:
        return None
    compaction_id = context.entry_ids[0]  # its summary is the context's first message
    types, ids = table.types, table.ids
    return Compacted(
        compaction_id=compaction_id,
        count=len(replaced),
        first_entry_id=ids[replaced[0]],
        last_entry_id=ids[replaced[-1]],
        tokens=estimate_range_tokens(table, replaced),
        earlier_compactions=list(map(types.__getitem__, replaced)).count("compaction"),
        reason=SUMMARISED.format(compaction=compaction_id),
    )


def not_sent_entries(
    table: EntryTable, context: SessionContext, in_transcript: Collection[str | None]
) -> tuple[list[NotSent], Compacted | None]:
    """Entries of the path to ``context``'s leaf that no transcript message stands for:
    those listed one by one, and the compaction's range as one row."""
    path = context.path
    if not path:
        return [], None
    # The summarised entries are the path's first ones, up to the first kept: ~100k on a
    # long session, sorted by C loops (map, compress), not a Python step each.
    summarised = path[: context.summarised]
    replacing = list(map(_REPLACED_KINDS.__contains__, map(table.types.__getitem__, summarised)))
    replaced = list(itertools.compress(summarised, replacing))
    listed = list(itertools.compress(summarised, map(operator.not_, replacing)))
    kept = path[len(summarised) :]
    sent = map(in_transcript.__contains__, map(table.ids.__getitem__, kept))
    listed += itertools.compress(kept, map(operator.not_, sent))
    return _listed_rows(table, listed), compacted_range(table, context, replaced)


def _listed_rows(table: EntryTable, positions: Sequence[int]) -> list[NotSent]:
    calls: dict[str, ToolCallRef] = {}
    found: list[NotSent] = []
    ids, types, roles = table.ids, table.types, table.roles
    with bulk_allocation():
        for position in positions:
            raw = row_fields(table, position)
            kind = types[position]
            role = roles[position]
            if role == "assistant":
                _remember_calls(raw, calls)
            found.append(
                NotSent(
                    ids[position],
                    role if kind == "message" and role else kind,
                    _entry_reason(kind, raw),
                    estimate_raw_entry(raw),
                    flat_inert(row_text(raw, calls).plain),
                )
            )
    return found
