"""What the model sees at a leaf: pi's ``buildSessionContext`` (PI_SPEC §5.7).

Linear in the path length (pi's is quadratic), and only the entries that end up in the
context are validated into typed messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, Literal

from pitui.agent.messages import AgentMessage
from pitui.ai._base import PiModel
from pitui.core.messages import (
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    iso_to_ms,
)
from pitui.core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from pitui.core.session.table import EntryTable


class _Unset(Enum):
    UNSET = "unset"


UNSET: Final = _Unset.UNSET
"""Leaf argument meaning "not given": the last entry of the file (pi's ``undefined``)."""
LeafArg = str | None | Literal[_Unset.UNSET]

_CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})


class ModelRef(PiModel):
    """The model in effect at a leaf, as pi writes it: ``{"provider", "modelId"}``."""

    provider: str
    model_id: str


@dataclass
class SessionContext:
    """The transcript at a leaf, with the model and thinking level in effect there."""

    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str = "off"
    model: ModelRef | None = None
    leaf_id: str | None = None
    """The entry the context was built at (None for an empty context)."""


def _as_message(entry: SessionEntry) -> AgentMessage | None:
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        message = CustomMessage(
            custom_type=entry.custom_type,
            content=entry.content,
            display=entry.display,
            timestamp=iso_to_ms(entry.timestamp),
        )
        if "details" in entry.model_fields_set:
            message.details = entry.details
        if entry.exclude_from_context is not None:
            message.exclude_from_context = entry.exclude_from_context
        return message
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryMessage(
            summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp)
        )
    return None


def _leaf_position(table: EntryTable, leaf_id: LeafArg) -> int | None:
    if leaf_id is None or not len(table):
        return None
    if leaf_id is not UNSET:
        position = table.index.get(leaf_id)
        if position is not None:
            return position
    return len(table) - 1  # unknown id or not given: the last entry, as pi


def _settings(table: EntryTable, path: list[int], context: SessionContext) -> int | None:
    """Scan the path for thinking level and model; returns the last compaction's position."""
    compaction: int | None = None
    types = table.types
    for position in path:
        kind = types[position]
        if kind == "message":
            ref = table.assistant_model(position)
            if ref is not None:
                context.model = ModelRef(provider=ref[0], model_id=ref[1])
        elif kind == "thinking_level_change":
            entry = table.entry(position)
            if isinstance(entry, ThinkingLevelChangeEntry):
                context.thinking_level = entry.thinking_level
        elif kind == "model_change":
            entry = table.entry(position)
            if isinstance(entry, ModelChangeEntry):
                context.model = ModelRef(provider=entry.provider, model_id=entry.model_id)
        elif kind == "compaction" and isinstance(table.entry(position), CompactionEntry):
            compaction = position
    return compaction


def _emit(table: EntryTable, positions: Sequence[int], out: list[AgentMessage]) -> None:
    types = table.types
    for position in positions:
        if types[position] in _CONTEXT_TYPES:
            message = _as_message(table.entry(position))
            if message is not None:
                out.append(message)


def build_context_from_table(table: EntryTable, leaf_id: LeafArg = UNSET) -> SessionContext:
    """:func:`build_session_context` over a loaded table (no copying, lazy validation)."""
    leaf = _leaf_position(table, leaf_id)
    if leaf is None:
        return SessionContext()
    context = SessionContext(leaf_id=table.ids[leaf])
    path = table.path_positions(leaf)
    compaction_at = _settings(table, path, context)
    if compaction_at is None:
        _emit(table, path, context.messages)
        return context
    compaction = table.entry(compaction_at)
    assert isinstance(compaction, CompactionEntry)
    context.messages.append(
        CompactionSummaryMessage(
            summary=compaction.summary,
            tokens_before=compaction.tokens_before,
            timestamp=iso_to_ms(compaction.timestamp),
        )
    )
    cut = path.index(compaction_at)
    first_kept = compaction.first_kept_entry_id
    before = path[:cut]
    kept_from = next(
        (i for i, position in enumerate(before) if table.ids[position] == first_kept), cut
    )
    _emit(table, before[kept_from:], context.messages)
    _emit(table, path[cut + 1 :], context.messages)
    return context


def build_session_context(
    entries: Sequence[SessionEntry], leaf_id: LeafArg = UNSET
) -> SessionContext:
    """The context at ``leaf_id``, as pi's ``buildSessionContext``.

    Args:
        entries: Session entries in file order.
        leaf_id: The leaf; ``None`` gives an empty context; an unknown id or
            :data:`UNSET` means the last entry.

    Returns:
        Messages (compaction summary first when the path has a compaction, then the kept
        entries from ``firstKeptEntryId``, then later entries; branch summaries and custom
        messages in place), thinking level (default ``off``) and model.
    """
    table = EntryTable()
    for entry in entries:
        table.add_entry(entry)
    return build_context_from_table(table, leaf_id)
