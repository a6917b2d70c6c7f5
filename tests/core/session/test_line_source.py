"""Typed entries give their lines up and read them again from the file (the TUI's memory).

Every reader of a line (the exact bytes: export, fork; the JSON: the tree, stats, the
compaction) gets what it got before the lines were given up; a file rewritten in place
falls back to the typed entry's JSON; nothing untyped is ever given up.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pitui.ai import _base
from pitui.ai.types import AssistantMessage
from pitui.core.compaction.cut import prepare_compaction
from pitui.core.compaction.view import path_view
from pitui.core.context_unsent import estimate_range_tokens
from pitui.core.session.entries import MessageEntry
from pitui.core.session.fork import fork_store
from pitui.core.session.store import SessionStore
from tests.core.session.helpers import FIXTURES, ORACLE

SESSIONS = sorted(
    [
        *ORACLE.glob("*.v3.jsonl"),
        *(ORACLE / "tree").glob("*.jsonl"),
        FIXTURES / "pi-1.6/session.jsonl",
    ]
)
LARGE = ORACLE / "large-session.v3.jsonl"


async def _open_typed(tmp_path: Path, source: Path) -> SessionStore:
    """A copy of ``source`` opened, with its current path typed (as resuming it in the
    TUI does)."""
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    store = await SessionStore.open(path, read_only=True)
    store.get_branch()
    return store


def _readings(store: SessionStore) -> tuple[list[bytes | None], list[object]]:
    table = store.table
    return [table.line(p) for p in range(len(table))], [table.raw(p) for p in range(len(table))]


@pytest.mark.parametrize("source", SESSIONS, ids=[f"{p.parent.name}/{p.stem}" for p in SESSIONS])
async def test_lines_read_again_equal_the_lines_kept(tmp_path: Path, source: Path) -> None:
    store = await _open_typed(tmp_path, source)
    table = store.table
    before = _readings(store)
    typed = {p for p in range(len(table)) if table.is_typed(p)}
    released = store.release_typed_lines()
    given_up = {p for p in range(len(table)) if table.raws[p] == b""}
    assert released == len(given_up)
    assert given_up <= typed  # an untyped entry keeps its line: it has nothing else
    assert _readings(store) == before
    await store.close()


async def test_a_long_path_gives_its_lines_up(tmp_path: Path) -> None:
    store = await _open_typed(tmp_path, LARGE)
    table = store.table
    path = [p for p in range(len(table)) if table.is_typed(p) and table.line(p) is not None]
    assert store.release_typed_lines() == len(path) > 100
    assert store.release_typed_lines() == 0  # given up once
    await store.close()


async def test_compaction_and_fork_read_the_same_after_giving_up(tmp_path: Path) -> None:
    source = LARGE
    (tmp_path / "kept").mkdir()
    (tmp_path / "given").mkdir()
    kept = await _open_typed(tmp_path / "kept", source)
    given = await _open_typed(tmp_path / "given", source)
    given.release_typed_lines()
    leaf = kept.get_leaf_id()
    preparations = [prepare_compaction(path_view(s.table, leaf)) for s in (kept, given)]
    facts = [{k: v for k, v in vars(p).items() if k != "view"} for p in preparations if p]
    assert len(facts) == 2 and facts[0] == facts[1] and facts[0]["file_ops"].read
    branch = kept.get_branch()
    users = [e.id for e in branch if isinstance(e, MessageEntry) and e.message.role == "user"]
    forks = [await fork_store(s, users[-1]) for s in (kept, given)]
    copied = [[f.table.line(p) for p in range(len(f.table))] for f in forks]
    assert copied[0] == copied[1] and any(line is not None for line in copied[0])
    for store in (*forks, kept, given):
        await store.close()


async def test_a_file_rewritten_in_place_falls_back_to_the_entries(tmp_path: Path) -> None:
    store = await _open_typed(tmp_path, LARGE)
    table = store.table
    before = [table.raw(p) for p in range(len(table))]
    store.release_typed_lines()
    given_up = [p for p in range(len(table)) if table.raws[p] == b""]
    assert store.path is not None and given_up
    data = store.path.read_bytes()
    store.path.write_bytes(data.replace(b'"', b"'"))  # same size, other bytes, same inode
    assert [table.raw(p) for p in range(len(table))] == before
    assert all(table.line(p) is None for p in given_up)  # no longer the file's bytes
    await store.close()


async def test_after_close_the_entries_answer(tmp_path: Path) -> None:
    store = await _open_typed(tmp_path, LARGE)
    table = store.table
    before = [table.raw(p) for p in range(len(table))]
    store.release_typed_lines()
    await store.close()
    assert [table.raw(p) for p in range(len(table))] == before


async def test_a_session_without_a_file_gives_nothing_up() -> None:
    store = SessionStore.in_memory(Path("/"))
    assert store.release_typed_lines() == 0


async def test_a_long_lived_process_types_entries_with_shared_strings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With loaded fields shared (the TUI), a typed entry holds the table's id objects and
    equal short values (model, provider, tool names) are one object across entries; the
    entries are equal to those typed without sharing."""
    plain = await _open_typed(tmp_path, LARGE)
    monkeypatch.setattr(_base, "_shared_fields", None)
    _base.share_loaded_fields()
    (tmp_path / "shared").mkdir()
    shared = await _open_typed(tmp_path / "shared", LARGE)
    table = shared.table
    typed = [table.entry(p) for p in range(len(table)) if table.is_typed(p)]
    assert [e.to_json_dict() for e in typed] == [e.to_json_dict() for e in plain.get_branch()]
    for entry in typed:
        position = table.index[entry.id]
        assert entry.id is table.ids[position]
        assert entry.parent_id is None or entry.parent_id is table.parents[position]
    models = [
        e.message.model
        for e in typed
        if isinstance(e, MessageEntry) and isinstance(e.message, AssistantMessage)
    ]
    assert len(models) > 10 and len({id(m) for m in models}) == len(set(models))
    for store in (plain, shared):
        await store.close()


async def test_a_range_estimate_reads_given_up_lines_again(tmp_path: Path) -> None:
    """A compaction's replaced range (the context report's one row) may hold lines the
    TUI gave up: they are sized and sampled as the lines they are, not as empty ones."""
    store = await _open_typed(tmp_path, LARGE)
    table = store.table
    positions = list(range(len(table)))
    before = estimate_range_tokens(table, positions)
    assert store.release_typed_lines() > 100
    assert estimate_range_tokens(table, positions) == before
    await store.close()
