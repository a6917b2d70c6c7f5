"""The tree's search text from a typed entry in memory equals the text from its line, and
a search after the lines were given up reads none of them back from the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pitui.core.session.line_source import LineSource
from pitui.core.session.row_fields import row_fields
from pitui.core.session.store import SessionStore
from pitui.core.session.tree_rows import search_text
from pitui.core.session.tree_view import TreeView
from pitui.core.session.typed_search import typed_search_text
from tests.core.session.helpers import FIXTURES, ORACLE

SESSIONS = sorted(
    [
        *ORACLE.glob("*.v3.jsonl"),
        *(ORACLE / "tree").glob("*.jsonl"),
        FIXTURES / "pi-1.6/session.jsonl",
    ]
)


async def _open_all_typed(tmp_path: Path, source: Path) -> SessionStore:
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    store = await SessionStore.open(path, read_only=True)
    store.table.all()  # every entry typed: each kind is compared
    return store


@pytest.mark.parametrize("source", SESSIONS, ids=[f"{p.parent.name}/{p.stem}" for p in SESSIONS])
async def test_the_typed_entry_gives_the_lines_search_text(tmp_path: Path, source: Path) -> None:
    store = await _open_all_typed(tmp_path, source)
    table = store.table
    kinds = set()
    for position in range(len(table)):
        for label in (None, "My Label"):
            typed = typed_search_text(table.entry(position), label)
            if typed is not None:
                kinds.add(table.types[position])
                assert typed == search_text(row_fields(table, position), label), position
    assert "message" in kinds
    await store.close()


@pytest.mark.parametrize("query", ["user", "the", "compaction", "model", "zzz"])
async def test_a_search_after_the_lines_were_given_up_reads_no_line_again(
    tmp_path: Path, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = ORACLE / "large-session.v3.jsonl"
    (tmp_path / "kept").mkdir()
    (tmp_path / "given").mkdir()
    kept = await _open_all_typed(tmp_path / "kept", source)
    given = await _open_all_typed(tmp_path / "given", source)
    assert given.release_typed_lines() > 100
    reads: list[int] = []
    read = LineSource.read

    def counted(self: LineSource, position: int, entry_id: str) -> bytes | None:
        reads.append(position)
        return read(self, position, entry_id)

    monkeypatch.setattr(LineSource, "read", counted)
    views = [
        TreeView(s.table, s.labels(), s.get_leaf_id(), filter_mode="all") for s in (kept, given)
    ]
    reads.clear()  # the rows' own facts (an assistant's text and stop) read lines; not these
    for view in views:
        view.set_query(query)
    assert reads == []  # the search read no line back
    assert views[0].visible == views[1].visible
    for store in (kept, given):
        await store.close()
