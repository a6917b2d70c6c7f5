"""Where a compaction cuts, and what it summarises (pi's ``prepareCompaction``, §6.4).

Everything here reads the raw JSON of the session table, so preparing a compaction of a
100k-entry session validates no entry; the messages to summarise are built (validated)
only when :meth:`CompactionPreparation.messages_to_summarize` is called.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq
from typing import Any

from pitui.agent.messages import AgentMessage
from pitui.core.compaction.files import (
    FileOperations,
    extract_from_joined,
    extract_from_lines,
    extract_from_raw,
)
from pitui.core.compaction.tokens import (
    estimate_raw_entry,
    estimate_raw_message,
    raw_context_tokens,
    raw_valid_usage,
)
from pitui.core.compaction.view import USER_LIKE_ENTRIES, PathView, entry_to_message, path_view
from pitui.core.session.bulk import bulk_allocation
from pitui.core.settings import CompactionSettings

__all__ = [
    "CompactionPreparation",
    "CutPoint",
    "PathView",
    "entry_to_message",
    "find_cut_point",
    "find_turn_start",
    "path_view",
    "prepare_compaction",
]
_MESSAGE_ENTRIES = frozenset({"message", "custom_message", "branch_summary", "compaction"})


@dataclass(frozen=True, slots=True)
class CutPoint:
    """Indices into the branch path: first kept entry, start of the split turn (or -1)."""

    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool


def find_turn_start(view: PathView, index: int, start: int) -> int:
    """Nearest index ≤ ``index`` (and ≥ ``start``) that starts a turn; -1 if none."""
    for i in range(index, start - 1, -1):
        kind = view.kinds[i]
        if kind in USER_LIKE_ENTRIES:
            return i
        if kind == "message" and view.role(i) in ("user", "bashExecution"):
            return i
    return -1


def _first_cut_at_or_after(view: PathView, index: int, end: int) -> int | None:
    return next((i for i in range(index, end) if view.is_cut_point(i)), None)


def find_cut_point(view: PathView, start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """pi's ``findCutPoint``: keep about ``keep_recent_tokens`` of the newest messages."""
    first = _first_cut_at_or_after(view, start, end)
    if first is None:
        return CutPoint(start, -1, False)
    cut = first
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        message = view.message(i)
        if message is None:
            continue
        accumulated += estimate_raw_message(message)
        if accumulated >= keep_recent_tokens:
            found = _first_cut_at_or_after(view, i, end)
            cut = first if found is None else found
            break
    # Settings, labels and other non-message entries just before the cut stay with it.
    while cut > start and view.kinds[cut - 1] not in ("message", "compaction"):
        cut -= 1
    is_user = view.kinds[cut] == "message" and view.role(cut) == "user"
    turn_start = -1 if is_user else find_turn_start(view, cut, start)
    return CutPoint(cut, turn_start, not is_user and turn_start != -1)


@dataclass
class CompactionPreparation:
    """What a compaction would summarise and keep (pi's ``CompactionPreparation``)."""

    view: PathView
    first_kept_entry_id: str
    cut: CutPoint
    boundary_start: int
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings
    summarize_indices: list[int] = field(default_factory=list)
    turn_prefix_indices: list[int] = field(default_factory=list)

    @property
    def is_split_turn(self) -> bool:
        """The cut falls inside a turn; its prefix gets a summary of its own."""
        return self.cut.is_split_turn

    def messages_to_summarize(self) -> list[AgentMessage]:
        """The messages the history summary covers (validated on this call)."""
        return self.view.messages(self.summarize_indices)

    def turn_prefix_messages(self) -> list[AgentMessage]:
        """The messages of the split turn before the cut (empty when not split)."""
        return self.view.messages(self.turn_prefix_indices)


def _last_index_of(kinds: list[str], kind: str) -> int:
    if kind not in kinds:
        return -1
    return len(kinds) - 1 - kinds[::-1].index(kind)


def _tokens_before(view: PathView, usage_start: int) -> int:
    """pi's ``estimateContextTokens`` over the messages from ``usage_start`` to the end."""
    end = len(view)
    for i in range(end - 1, usage_start - 1, -1):
        message = view.message(i)
        usage = None if message is None else raw_valid_usage(message)
        if usage is not None:
            trailing = sum(estimate_raw_entry(view.raw(j)) for j in range(i + 1, end))
            return raw_context_tokens(usage) + trailing
    return sum(estimate_raw_entry(view.raw(j)) for j in range(usage_start, end))


def _message_indices(view: PathView, start: int, end: int) -> list[int]:
    selected = map(_MESSAGE_ENTRIES.__contains__, view.kinds[start:end])
    return list(compress(range(start, end), selected))


def _column(view: PathView, column: list[Any], start: int, end: int) -> list[Any]:
    """A table column's values at path indices [start, end), gathered at C speed."""
    runs = view.table_runs(start, end)
    if runs is None:
        return list(map(column.__getitem__, view.positions[start:end]))
    if len(runs) == 1:
        return column[runs[0].start : runs[0].stop]
    values: list[Any] = []
    for run in runs:
        values.extend(column[run.start : run.stop])
    return values


def _is_assistant(roles: list[str | None]) -> Iterator[bool]:
    return map(eq, repeat("assistant"), roles)  # roles may be None: no str.__eq__


def _collect_file_ops(view: PathView, start: int, end: int, ops: FileOperations) -> None:
    roles = view.roles
    if roles is None:  # no role column: read each message
        for i in range(start, end):
            message = view.message(i)
            if message is not None:
                extract_from_raw(message, ops)
        return
    # The assistant messages' raw data (file lines, or objects for entries added since,
    # or b"" for lines given up, read again from the file).
    path_roles = _column(view, roles, start, end)
    raws = list(compress(_column(view, view.table.raws, start, end), _is_assistant(path_roles)))
    joined: bytes | None = None
    if b"" not in raws:
        with suppress(TypeError):  # not all are file lines
            joined = b"\n".join(raws)
    if joined is None:
        positions = list(compress(view.positions[start:end], _is_assistant(path_roles)))
        _collect_mixed(view, positions, raws, ops)
        return
    extract_from_joined(joined, raws, ops)


def _collect_mixed(
    view: PathView, positions: list[int], raws: list[Any], ops: FileOperations
) -> None:
    """File lines and entries appended since: scan runs of lines, read the rest."""
    lines: list[bytes] = []
    for position, raw in zip(positions, raws, strict=True):
        if type(raw) is bytes and raw:
            lines.append(raw)
            continue
        if lines:
            extract_from_lines(lines, ops)
            lines = []
        message = view.table.raw(position).get("message")
        if isinstance(message, dict):
            extract_from_raw(message, ops)
    if lines:
        extract_from_lines(lines, ops)


def _file_ops(view: PathView, previous: int, ranges: list[tuple[int, int]]) -> FileOperations:
    """Seeds from the previous compaction, then read/write/edit calls in ``ranges``."""
    ops = FileOperations()
    if previous >= 0:
        raw = view.raw(previous)
        if not raw.get("fromHook") and raw.get("details"):
            ops.seed(raw.get("details"))
    for start, end in ranges:
        _collect_file_ops(view, start, end, ops)
    return ops


def prepare_compaction(
    view: PathView, settings: CompactionSettings | None = None
) -> CompactionPreparation | None:
    """pi's ``prepareCompaction`` over a branch path.

    Returns:
        None when the path is empty, already ends with a compaction, or the cut would
        summarise nothing (everything since the previous compaction fits in
        ``keep_recent_tokens``: pi 1.6's rule; 0.58 still called the summariser on an
        empty conversation and wrote a compaction that kept everything); otherwise the
        cut, the messages to summarise (history, and the turn prefix of a split turn),
        the previous summary, the file operations and the context size before compacting.
    """
    settings = settings or CompactionSettings()
    # Lists of 100k items and many short-lived objects: no GC passes over the session.
    with bulk_allocation():
        return _prepare(view, settings)


def _prepare(view: PathView, settings: CompactionSettings) -> CompactionPreparation | None:
    kinds = view.kinds
    if not kinds or kinds[-1] == "compaction":
        return None
    previous = _last_index_of(kinds, "compaction")
    start, end = previous + 1, len(kinds)
    tokens_before = _tokens_before(view, max(previous, 0))
    cut = find_cut_point(view, start, end, settings.keep_recent_tokens)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    summarize = _message_indices(view, start, history_end)
    ranges = [(start, history_end)]
    prefix: list[int] = []
    if cut.is_split_turn:
        prefix = _message_indices(view, cut.turn_start_index, cut.first_kept_entry_index)
        ranges.append((cut.turn_start_index, cut.first_kept_entry_index))
    if not summarize and not prefix:
        return None  # a compaction would summarise nothing and keep everything
    previous_summary = None
    if previous >= 0:
        summary = view.raw(previous).get("summary")
        previous_summary = summary if isinstance(summary, str) else None
    return CompactionPreparation(
        view=view,
        first_kept_entry_id=view.entry_id(cut.first_kept_entry_index),
        cut=cut,
        boundary_start=start,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=_file_ops(view, previous, ranges),
        settings=settings,
        summarize_indices=summarize,
        turn_prefix_indices=prefix,
    )
