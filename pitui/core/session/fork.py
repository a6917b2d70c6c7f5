"""Fork a session at an entry: pi's ``createBranchedSession`` (PI_SPEC §5.10)."""

from __future__ import annotations

from typing import Any

from pitui.core.session.entries import LabelEntry
from pitui.core.session.ids import iso_now, new_entry_id
from pitui.core.session.store import SessionStore
from pitui.core.session.table import EntryTable, Raw
from pitui.core.session.tree import child_positions
from pitui.core.session.writer import dumps_line
from pitui.errors import SessionError


async def fork_store(source: SessionStore, entry_id: str) -> SessionStore:
    """A new session holding the path root→``entry_id`` of ``source`` (pi's
    ``createBranchedSession``).

    The entries keep their ids. Label entries are dropped and the kept entries re-chained
    (an entry sent after a label is the label's child), then one label entry is appended
    per resolved label whose target is on the path, with the label's own timestamp. The
    new file's header names the source file as ``parentSession``; it is written now if
    the path has an assistant message, else with the first one. ``source`` stays open.
    """
    table = source.table
    leaf = table.index.get(entry_id)
    if leaf is None:
        raise SessionError(f"Entry {entry_id} not found")
    parent = str(source.path) if source.path is not None else None
    if source.path is None:
        target = SessionStore.in_memory(source.cwd)
    else:
        target = SessionStore.create(source.cwd, source.session_dir, parent_session=parent)
    previous = _copy_path(table, table.path_positions(leaf), target)
    _append_labels(source, target, previous)
    new_table = target.table
    target._leaf = new_table.ids[-1] if len(new_table) else None
    target._has_assistant = "assistant" in new_table.roles
    await target.flush()
    return target


def _copy_path(table: EntryTable, path: list[int], target: SessionStore) -> str | None:
    """Copy the non-label entries of ``path`` into ``target``, each the child of the one
    before it; returns the last one's id. An entry whose parent is unchanged keeps its
    exact line."""
    new_table = target.table
    replaced: dict[str, str] = {}  # dropped label id → the kept entry that follows it
    dropped: list[str] = []
    previous: str | None = None
    for position in path:
        entry_id = table.ids[position]
        if table.types[position] == "label":
            dropped.append(entry_id)
            continue
        replaced.update(dict.fromkeys(dropped, entry_id))
        dropped.clear()
        line = table.line(position)
        raw: Raw = line if line is not None else table.raw(position)
        if _parent_changes(table, position, previous) or _keeps_label(table, position):
            raw = _rechained(table.raw(position), previous, replaced)
        new_table.add_raw(raw, entry_id, previous, table.types[position], table.roles[position])
        target._pending.append(raw + b"\n" if isinstance(raw, bytes) else dumps_line(raw))
        previous = entry_id
    return previous


def _parent_changes(table: EntryTable, position: int, parent: str | None) -> bool:
    """Whether the entry's written ``parentId`` is not ``parent``. The table holds the
    effective parent, which differs from the written one only for a broken link (cut to
    None), so only a root needs its line parsed."""
    if table.parents[position] != parent:
        return True
    return parent is None and table.raw(position).get("parentId") is not None


def _keeps_label(table: EntryTable, position: int) -> bool:
    """A compaction whose first kept entry may be a dropped label."""
    if table.types[position] != "compaction":
        return False
    kept = table.raw(position).get("firstKeptEntryId")
    at = table.index.get(kept) if isinstance(kept, str) else None
    return at is not None and table.types[at] == "label"


def _rechained(raw: dict[str, Any], parent: str | None, replaced: dict[str, str]) -> dict[str, Any]:
    copy = dict(raw)
    copy["parentId"] = parent
    kept = copy.get("firstKeptEntryId")
    if copy.get("type") == "compaction" and isinstance(kept, str) and kept != copy.get("id"):
        copy["firstKeptEntryId"] = replaced.get(kept, kept)
    return copy


def _append_labels(source: SessionStore, target: SessionStore, previous: str | None) -> None:
    new_table = target.table
    on_path = set(new_table.index)
    stamps = _label_timestamps(source.table)
    for target_id, label in source.labels().items():
        if target_id not in on_path:
            continue
        entry = LabelEntry(
            id=new_entry_id(new_table.index),
            parent_id=previous,
            timestamp=stamps.get(target_id) or iso_now(),
            target_id=target_id,
            label=label,
        )
        raw = entry.to_json_dict()
        new_table.add_entry(entry, raw)
        target._pending.append(dumps_line(raw))
        target._labels[target_id] = label
        previous = entry.id


def _label_timestamps(table: EntryTable) -> dict[str, str]:
    """Target id → timestamp of the label entry that set its label last (pi keeps it)."""
    stamps: dict[str, str] = {}
    for position, kind in enumerate(table.types):
        if kind != "label":
            continue
        raw = table.raw(position)
        target, stamp = raw.get("targetId"), raw.get("timestamp")
        if isinstance(target, str) and isinstance(stamp, str):
            stamps[target] = stamp
    return stamps


def exchange_end(table: EntryTable, entry_id: str) -> str:
    """Where a fork at ``entry_id`` ends so that no tool call is left without its result:
    the entry itself, or, inside a tool exchange (an assistant reply with tool calls and
    the results that answer them), the exchange's last result.

    Raises:
        SessionError: Some call of the exchange has no result in the file (the reason).
    """
    position = table.index.get(entry_id)
    if position is None:
        raise SessionError(f"Entry {entry_id} not found")
    path = table.path_positions(position)
    roles = table.roles
    # The nearest message above that is no tool result (labels and other entries skipped).
    owner = next((p for p in reversed(path) if roles[p] not in (None, "toolResult")), None)
    if owner is None or roles[owner] != "assistant":
        return entry_id
    pending = _calls(table.raw(owner))
    for step in path[path.index(owner) + 1 :]:
        pending.pop(_answers(table, step) or "", None)
    if not pending:
        return entry_id
    _, children = child_positions(table)
    current = position
    while pending:
        answer = _next_answer(table, children, current, pending)
        if answer is None:
            # An entry that is no message (pitui's checkpoint, taken before the tools ran)
            # can sit between the calls and their results: look below it.
            through = next((c for c in children[current] if roles[c] is None), None)
            if through is not None:
                current = through
                continue
            names = ", ".join(sorted(set(pending.values())))
            raise SessionError(
                f"Cannot fork inside this tool exchange: the {names} call of entry "
                f"{table.ids[owner]} has no result in the file. Fork at the user message "
                "before it instead.",
                title="Fork",
            )
        pending.pop(_answers(table, answer) or "")
        current = answer
    return table.ids[current]


def _next_answer(
    table: EntryTable, children: list[list[int]], start: int, pending: dict[str, str]
) -> int | None:
    """The first entry below ``start`` that answers a pending call, looking through
    entries that are no message (a checkpoint, a label, a model change between a call and
    its result)."""
    queue = list(children[start])
    while queue:
        position = queue.pop(0)
        if _answers(table, position) in pending:
            return position
        if table.roles[position] is None:
            queue.extend(children[position])
    return None


def _calls(raw: dict[str, Any]) -> dict[str, str]:
    """Tool call id → tool name of an assistant message (none for a failed reply, whose
    calls are never replayed)."""
    message = raw.get("message")
    if not isinstance(message, dict) or message.get("stopReason") in ("error", "aborted"):
        return {}
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return {
        b["id"]: str(b.get("name", "tool"))
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "toolCall" and isinstance(b.get("id"), str)
    }


def _answers(table: EntryTable, position: int) -> str | None:
    """The tool call id a tool result entry answers."""
    if table.roles[position] != "toolResult":
        return None
    message = table.raw(position).get("message")
    call = message.get("toolCallId") if isinstance(message, dict) else None
    return call if isinstance(call, str) else None


def fork_points(table: EntryTable) -> list[tuple[str, str]]:
    """``(entry id, text)`` of every user message with text, all branches, newest first
    (what ``/fork`` offers, PI_SPEC §5.10)."""
    from pitui.core.session.tree_rows import content_text  # the tree's row text: /fork only

    points: list[tuple[str, str]] = []
    for position in range(len(table) - 1, -1, -1):
        if table.roles[position] != "user":
            continue
        message = table.raw(position).get("message")
        content = message.get("content") if isinstance(message, dict) else None
        text = content_text(content, limit=1_000_000).strip()
        if text:
            points.append((table.ids[position], text))
    return points
