"""Fork a session at an entry: pi's ``createBranchedSession`` (PI_SPEC §5.10)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.core.session.entries import LabelEntry
from pitui.core.session.ids import iso_now, new_entry_id
from pitui.core.session.table import EntryTable, Raw
from pitui.core.session.tree_rows import content_text
from pitui.core.session.writer import dumps_line
from pitui.errors import SessionError

if TYPE_CHECKING:
    from pitui.core.session.store import SessionStore


async def fork_store(source: SessionStore, entry_id: str) -> SessionStore:
    """A new store with the path root→``entry_id`` of ``source`` (see ``SessionStore.fork``)."""
    from pitui.core.session.store import SessionStore

    table = source.table
    leaf = table.index.get(entry_id)
    if leaf is None:
        raise SessionError(f"Entry {entry_id} not found")
    path = [p for p in table.path_positions(leaf) if table.types[p] != "label"]
    parent = str(source.path) if source.path is not None else None
    if source.path is None:
        target = SessionStore.in_memory(source.cwd)
    else:
        target = SessionStore.create(source.cwd, source.session_dir, parent_session=parent)
    new_table = target.table
    for position in path:
        line = table.line(position)
        raw: Raw = line if line is not None else table.raw(position)
        new_table.add_raw(
            raw,
            table.ids[position],
            table.parents[position],
            table.types[position],
            table.roles[position],
        )
        target._pending.append(
            line + b"\n" if line is not None else dumps_line(table.raw(position))
        )
    previous = table.ids[path[-1]] if path else None
    on_path = set(new_table.index)
    for target_id, label in source.labels().items():
        if target_id not in on_path:
            continue
        entry = LabelEntry(
            id=new_entry_id(new_table.index),
            parent_id=previous,
            timestamp=iso_now(),
            target_id=target_id,
            label=label,
        )
        raw = entry.to_json_dict()
        new_table.add_entry(entry, raw)
        target._pending.append(dumps_line(raw))
        target._labels[target_id] = label
        previous = entry.id
    target._leaf = new_table.ids[-1] if len(new_table) else None
    target._has_assistant = _path_has_assistant(target)
    await target.flush()
    return target


def _path_has_assistant(store: SessionStore) -> bool:
    return "assistant" in store.table.roles


def fork_points(table: EntryTable) -> list[tuple[str, str]]:
    """``(entry id, text)`` of every user message with text, all branches, newest first
    (what ``/fork`` offers, PI_SPEC §5.10)."""
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
