"""What the model sees at a leaf: pi's ``buildSessionContext`` (PI_SPEC §5.7).

Linear in the path length (pi's is quadratic), and only the entries that end up in the
context are validated into typed messages.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from enum import Enum
from pathlib import Path
from typing import Final, Literal, TypeVar

import msgspec

from pitui.agent.messages import AgentMessage
from pitui.ai._base import ON_FIRST_USE, PiModel
from pitui.core.messages import (
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    iso_to_ms,
)
from pitui.core.session.bulk import bulk_allocation
from pitui.core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from pitui.core.session.table import EntryTable, KeptJson, positions_of


class _Unset(Enum):
    UNSET = "unset"


UNSET: Final = _Unset.UNSET
"""Leaf argument meaning "not given": the last entry of the file (pi's ``undefined``)."""
LeafArg = str | None | Literal[_Unset.UNSET]

_CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})


class ModelRef(PiModel):
    """The model in effect at a leaf, as pi writes it: ``{"provider", "modelId"}``."""

    model_config = ON_FIRST_USE  # read from a session file that names a model

    provider: str
    model_id: str


class SessionContext(msgspec.Struct):
    """The transcript at a leaf, with the model and thinking level in effect there."""

    messages: list[AgentMessage] = msgspec.field(default_factory=list)
    thinking_level: str = "off"
    model: ModelRef | None = None
    leaf_id: str | None = None
    """The entry the context was built at (None for an empty context)."""
    message_json: dict[int, KeptJson] = msgspec.field(default_factory=dict)
    """With ``keep_json``: the JSON each message was read from, by ``id(message)``
    (encoded already, see :func:`~pitui.core.session.table.kept_json`)."""
    entry_ids: list[str] = msgspec.field(default_factory=list)
    """Parallel to ``messages``: the entry each message stands for (the compaction's own
    id for its summary)."""
    summarised: int = 0
    """How many of the path's first entries come before the last compaction's
    ``firstKeptEntryId``: what its summary stands for (0 without a compaction; they are
    ``path[:summarised]``). A count: up to ~100k ids were built only to be counted."""
    path: list[int] = msgspec.field(default_factory=list)
    """Positions, in the table it was built from, of the entries from the root to the
    leaf (root first): what the context report sorts into sent and not sent."""


def entry_message(entry: SessionEntry) -> AgentMessage | None:
    """The message an entry puts in the model's context (pi's ``appendMessage``).

    A branch summary with an empty text contributes nothing, as in pi.
    """
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
        return branch_summary_message(entry)
    return None


def branch_summary_message(entry: BranchSummaryEntry) -> BranchSummaryMessage:
    """The message that stands for a ``branch_summary`` entry."""
    return BranchSummaryMessage(
        summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp)
    )


def compaction_summary_message(entry: CompactionEntry) -> CompactionSummaryMessage:
    """The message that stands for a ``compaction`` entry."""
    return CompactionSummaryMessage(
        summary=entry.summary,
        tokens_before=entry.tokens_before,
        timestamp=iso_to_ms(entry.timestamp),
    )


def _leaf_position(table: EntryTable, leaf_id: LeafArg) -> int | None:
    if leaf_id is None or not len(table):
        return None
    if leaf_id is not UNSET:
        position = table.index.get(leaf_id)
        if position is not None:
            return position
    return len(table) - 1  # unknown id or not given: the last entry, as pi


def _model_at(table: EntryTable, position: int) -> tuple[str, str] | None:
    if table.roles[position] == "assistant":
        return table.assistant_model(position)
    entry = table.entry(position)
    return (entry.provider, entry.model_id) if isinstance(entry, ModelChangeEntry) else None


def _is_compaction(table: EntryTable, position: int) -> bool:
    return isinstance(table.entry(position), CompactionEntry)


def _settings(table: EntryTable, path: list[int], context: SessionContext) -> int | None:
    """Thinking level and model in effect at the leaf; returns the last compaction's position.

    pi scans the path forward and keeps the last of each; looking backward for the first
    of each gives the same answer. Each is looked for in the path's types by ``list.index``
    (in C): the thinking level is often set once at the start of a 100k-entry path.
    """
    backward = path[::-1]
    kinds = list(map(table.types.__getitem__, backward))
    roles = list(map(table.roles.__getitem__, backward))
    model = _first(
        _model_at(table, backward[i])
        for i in heapq.merge(positions_of(kinds, "model_change"), positions_of(roles, "assistant"))
    )
    thinking = _first(
        entry.thinking_level
        for i in positions_of(kinds, "thinking_level_change")
        if isinstance(entry := table.entry(backward[i]), ThinkingLevelChangeEntry)
    )
    compaction = _first(
        backward[i] for i in positions_of(kinds, "compaction") if _is_compaction(table, backward[i])
    )
    if model is not None:
        context.model = ModelRef(provider=model[0], model_id=model[1])
    if thinking is not None:
        context.thinking_level = thinking
    return compaction


_T = TypeVar("_T")


def _first(found: Iterator[_T | None]) -> _T | None:
    """The first of ``found`` that is not None (None if none is)."""
    return next((item for item in found if item is not None), None)


def _emit(
    table: EntryTable,
    positions: Sequence[int],
    context: SessionContext,
    sink: dict[int, KeptJson] | None,
) -> None:
    types, ids = table.types, table.ids
    out, out_ids = context.messages, context.entry_ids
    for position in positions:
        if types[position] in _CONTEXT_TYPES:
            message = entry_message(table.entry(position, sink))
            if message is not None:
                out.append(message)
                out_ids.append(ids[position])


def build_context_from_table(
    table: EntryTable,
    leaf_id: LeafArg = UNSET,
    *,
    keep_json: bool = False,
    lines_from: Path | None = None,
) -> SessionContext:
    """:func:`build_session_context` over a loaded table (no copying, lazy validation).

    With ``keep_json``, :attr:`SessionContext.message_json` maps messages validated by this
    call to the JSON they were read from. ``lines_from``: the file the table was loaded
    from, for a one-shot reader: the entries a compaction summarised give their lines up
    before the context is validated (:meth:`EntryTable.give_up_lines`; a sample of them is
    read again to size them), and the memory goes back to the system. On a 100k-entry
    file that is most of its lines, which would otherwise sit beside the validated
    context (~60 MB for 25,000 messages) at the process's peak.
    """
    with bulk_allocation():
        return _build(table, leaf_id, keep_json, lines_from)


def _build(
    table: EntryTable, leaf_id: LeafArg, keep_json: bool, lines_from: Path | None = None
) -> SessionContext:
    leaf = _leaf_position(table, leaf_id)
    if leaf is None:
        return SessionContext()
    context = SessionContext(leaf_id=table.ids[leaf])
    sink = context.message_json if keep_json else None
    path = context.path = table.path_positions(leaf)
    compaction_at = _settings(table, path, context)
    if compaction_at is None:
        _emit(table, path, context, sink)
        return context
    compaction = table.entry(compaction_at)
    assert isinstance(compaction, CompactionEntry)
    context.messages.append(compaction_summary_message(compaction))
    context.entry_ids.append(table.ids[compaction_at])
    cut = path.index(compaction_at)
    before = path[:cut]
    kept_from = _first_with_id(table, before, compaction.first_kept_entry_id, cut)
    context.summarised = kept_from
    if lines_from is not None and _large(table, before[kept_from:], path[cut + 1 :]):
        _give_up(table, before[:kept_from], lines_from)
    _emit(table, before[kept_from:], context, sink)
    _emit(table, path[cut + 1 :], context, sink)
    return context


_LARGE_CONTEXT_BYTES = 8_000_000
"""Lines of a context that validates into enough models (~3x their size) for the lines a
compaction summarised to be worth giving up first. Under it the peak is the loading's
(the lines themselves), and freeing ~70 MB of lines would cost ~9 % more instructions."""


def _large(table: EntryTable, *parts: list[int]) -> bool:
    """Whether the lines of ``parts`` (the context's entries) add up to a large context."""
    sizes = [table.line_bytes(part) if part else 0 for part in parts]
    return None not in sizes and sum(s or 0 for s in sizes) >= _LARGE_CONTEXT_BYTES


def _give_up(table: EntryTable, summarised: list[int], lines_from: Path) -> None:
    """The summarised entries give their lines up, and the memory goes back."""
    if table.give_up_lines(summarised, lines_from):
        from pitui.core.heap import return_free_memory  # lazy: one-shot readers only

        return_free_memory()


def _first_with_id(
    table: EntryTable, positions: list[int], entry_id: str | None, default: int
) -> int:
    """The index in ``positions`` of the first entry whose id is ``entry_id`` (``default``
    when none is)."""
    ids = table.ids
    if entry_id is None:
        return default
    if len(table.index) == len(ids):  # every id once: its one entry, looked for in C
        position = table.index.get(entry_id)
        if position is None:
            return default
        try:
            return positions.index(position)
        except ValueError:
            return default
    return next((i for i, position in enumerate(positions) if ids[position] == entry_id), default)


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
