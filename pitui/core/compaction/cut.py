"""Where a compaction cuts, and what it summarises (pi's ``prepareCompaction``, §6.4).

Everything here reads the raw JSON of the session table, so preparing a compaction of a
100k-entry session validates no entry; the messages to summarise are built (validated)
only when :meth:`CompactionPreparation.messages_to_summarize` is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq
from typing import Any, cast

from pitui.agent.messages import AgentMessage
from pitui.core.compaction.files import FileOperations, extract_from_lines, extract_from_raw
from pitui.core.compaction.tokens import (
    estimate_raw_entry,
    estimate_raw_message,
    raw_context_tokens,
    raw_valid_usage,
)
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
    SessionEntry,
)
from pitui.core.session.table import EntryTable
from pitui.core.settings import CompactionSettings

_CUT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
_USER_LIKE_ENTRIES = frozenset({"branch_summary", "custom_message"})
_MESSAGE_ENTRIES = frozenset({"message", "custom_message", "branch_summary", "compaction"})


def entry_to_message(entry: SessionEntry) -> AgentMessage | None:
    """The message an entry contributes to a summary (pi's ``getMessageFromEntry``)."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        message = CustomMessage(
            custom_type=entry.custom_type,
            content=entry.content,
            display=entry.display,
            details=entry.details,
            timestamp=iso_to_ms(entry.timestamp),
        )
        if entry.exclude_from_context is not None:
            message.exclude_from_context = entry.exclude_from_context
        return message
    if isinstance(entry, BranchSummaryEntry):
        return BranchSummaryMessage(
            summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp)
        )
    if isinstance(entry, CompactionEntry):
        return CompactionSummaryMessage(
            summary=entry.summary,
            tokens_before=entry.tokens_before,
            timestamp=iso_to_ms(entry.timestamp),
        )
    return None


@dataclass(frozen=True, slots=True)
class CutPoint:
    """Indices into the branch path: first kept entry, start of the split turn (or -1)."""

    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool


class PathView:
    """One root→leaf path of a session table, read without validating entries.

    The table may hold an entry as its file line (parsed on each ``raw`` call); the view
    parses each entry at most once and asks the table's role column when there is one.
    """

    __slots__ = ("_parsed", "kinds", "positions", "roles", "table")

    def __init__(self, table: EntryTable, positions: Sequence[int]) -> None:
        self.table = table
        self.positions = list(positions)
        self.kinds = list(map(table.types.__getitem__, self.positions))
        self._parsed: dict[int, dict[str, Any]] = {}
        roles = getattr(table, "roles", None)
        self.roles: list[str | None] | None = roles if isinstance(roles, list) else None
        """The table's message-role column (by table position), when it has one."""

    def __len__(self) -> int:
        return len(self.positions)

    def raw(self, index: int) -> dict[str, Any]:
        """The JSON object of the entry at path index ``index``."""
        parsed = self._parsed.get(index)
        if parsed is None:
            parsed = self._parsed[index] = self.table.raw(self.positions[index])
        return parsed

    def message(self, index: int) -> dict[str, Any] | None:
        """The raw message of a ``message`` entry (None for other entries)."""
        if self.kinds[index] != "message":
            return None
        message = self.raw(index).get("message")
        return message if isinstance(message, dict) else None

    def role(self, index: int) -> object:
        """Role of a ``message`` entry's message (None for other entries)."""
        if self.roles is not None:
            return self.roles[self.positions[index]] if self.kinds[index] == "message" else None
        message = self.message(index)
        return None if message is None else message.get("role")

    def entry_id(self, index: int) -> str:
        """Id of the entry at ``index``."""
        return self.table.ids[self.positions[index]]

    def is_cut_point(self, index: int) -> bool:
        """Whether the kept part may start here (never at a tool result)."""
        kind = self.kinds[index]
        return kind in _USER_LIKE_ENTRIES or (kind == "message" and self.role(index) in _CUT_ROLES)

    def messages(self, indices: Sequence[int]) -> list[AgentMessage]:
        """Typed messages of the entries at ``indices`` (validated now)."""
        out: list[AgentMessage] = []
        for index in indices:
            message = entry_to_message(self.table.entry(self.positions[index]))
            if message is not None:
                out.append(message)
        return out


def _run_start(parents: list[str | None], ids: list[str], end: int) -> int:
    """Smallest ``s`` ≤ ``end`` such that every entry in (s, end] is the child of the one
    before it in the file. Found by galloping with slice comparisons, which run in C."""
    low, step = end, 1
    while low > 0:
        probe = max(0, low - step)
        if parents[probe + 1 : low + 1] != ids[probe:low]:
            break
        low, step = probe, step * 2
    else:
        return 0
    # The run starts somewhere in (probe, low]: binary search the boundary.
    lo, hi = probe + 1, low
    while lo < hi:
        mid = (lo + hi) // 2
        if parents[mid + 1 : low + 1] == ids[mid:low]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _path_positions(table: EntryTable, leaf: int) -> list[int]:
    """Root-first positions up to ``leaf``, fast for long runs of consecutive entries.

    A session is mostly runs where each entry's parent is the line before it; each run is
    found with a few slice comparisons instead of one dictionary lookup per entry.
    """
    index, parents, ids = table.index, table.parents, table.ids
    if len(index) != len(ids):  # duplicate ids: "parent = previous line" may not hold
        return table.path_positions(leaf)
    runs: list[range] = []
    current: int | None = leaf
    remaining = len(ids)
    while current is not None and remaining > 0:
        start = _run_start(parents, ids, current)
        runs.append(range(start, current + 1))
        remaining -= current + 1 - start
        parent = parents[start]
        following = None if parent is None else index.get(parent)
        if following is not None and following >= start:
            return table.path_positions(leaf)  # a parent later in the file: walk plainly
        current = following
    path: list[int] = []
    for run in reversed(runs):
        path.extend(run)
    return path


def path_view(table: EntryTable, leaf_id: str | None) -> PathView:
    """The path from the root to ``leaf_id`` (empty if the id is unknown or None)."""
    position = None if leaf_id is None else table.index.get(leaf_id)
    return PathView(table, [] if position is None else _path_positions(table, position))


def find_turn_start(view: PathView, index: int, start: int) -> int:
    """Nearest index ≤ ``index`` (and ≥ ``start``) that starts a turn; -1 if none."""
    for i in range(index, start - 1, -1):
        kind = view.kinds[i]
        if kind in _USER_LIKE_ENTRIES:
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
    for i in range(len(kinds) - 1, -1, -1):
        if kinds[i] == kind:
            return i
    return -1


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
    kinds = view.kinds
    return [i for i in range(start, end) if kinds[i] in _MESSAGE_ENTRIES]


def _assistant_lines(view: PathView, start: int, end: int) -> list[bytes] | None:
    """File lines of the assistant messages in [start, end), gathered at C speed; None
    when the table has no role column or some entry there is not held as a line."""
    roles = view.roles
    if roles is None or start >= end:
        return None if roles is None else []
    positions = view.positions[start:end]
    first, last = positions[0], positions[-1]
    raws: list[Any]
    if last - first == end - start - 1 and positions == list(range(first, last + 1)):
        raws, kinds = view.table.raws[first : last + 1], roles[first : last + 1]
    else:  # the path jumps between branches: gather entry by entry
        raws = list(map(view.table.raws.__getitem__, positions))
        kinds = list(map(roles.__getitem__, positions))
    lines = list(compress(raws, map(eq, repeat("assistant"), kinds)))
    # Entries appended in this process are objects, not lines: then go the slow way.
    return None if any(map(isinstance, lines, repeat(dict))) else cast("list[bytes]", lines)


def _collect_file_ops(view: PathView, start: int, end: int, ops: FileOperations) -> None:
    lines = _assistant_lines(view, start, end)
    if lines is not None:
        extract_from_lines(lines, ops)
        return
    for i in range(start, end):
        message = view.message(i)
        if message is not None:
            extract_from_raw(message, ops)


def _file_ops(view: PathView, previous: int, ranges: list[tuple[int, int]]) -> FileOperations:
    """Seeds from the previous compaction, then read/write/edit calls in ``ranges``."""
    ops = FileOperations()
    if previous >= 0:
        raw = view.raw(previous)
        if not raw.get("fromHook") and raw.get("details"):
            ops.seed(raw.get("details"))
    with bulk_allocation():  # tens of thousands of short-lived tuples: no GC passes
        for start, end in ranges:
            _collect_file_ops(view, start, end, ops)
    return ops


def prepare_compaction(
    view: PathView, settings: CompactionSettings | None = None
) -> CompactionPreparation | None:
    """pi's ``prepareCompaction`` over a branch path.

    Returns:
        None when the path is empty or already ends with a compaction; otherwise the cut,
        the messages to summarise (history, and the turn prefix of a split turn), the
        previous summary, the file operations and the context size before compacting.
    """
    settings = settings or CompactionSettings()
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
