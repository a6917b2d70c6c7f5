"""A one-shot reader gives up lines untyped (``EntryTable.give_up_lines``): placed by the
sizes loading measured, read again by their entry's id; ``pitui session context`` gives
up what a compaction summarised before it validates the context, and prints the same."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

from pitui.core.session.store import SessionStore
from pitui.errors import SessionError
from tests.core.session.helpers import FIXTURES, ORACLE

SESSIONS = sorted(
    [
        *ORACLE.glob("*.v3.jsonl"),
        *(ORACLE / "tree").glob("*.jsonl"),
        FIXTURES / "pi-1.6/session.jsonl",
    ]
)
COMPACTED = ORACLE / "before-compaction.v3.jsonl"


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


@pytest.mark.parametrize("source", SESSIONS, ids=[f"{p.parent.name}/{p.stem}" for p in SESSIONS])
async def test_every_line_given_up_reads_again_as_it_was(source: Path) -> None:
    store = await SessionStore.open(source, read_only=True)
    table = store.table
    assert table.line_origin is not None and store.path is not None
    everything = range(len(table))
    before = [table.line(p) for p in everything], [table.raw(p) for p in everything]
    sized = table.line_bytes(list(everything))
    assert table.give_up_lines(list(everything), store.path) == len(table)
    assert all(raw == b"" for raw in table.raws)
    assert ([table.line(p) for p in everything], [table.raw(p) for p in everything]) == before
    assert table.line_bytes(list(everything)) == sized


async def test_lines_before_the_header_do_not_shift_the_places(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n   \n" + COMPACTED.read_bytes())
    store = await SessionStore.open(path, read_only=True)
    table = store.table
    lines = [table.line(p) for p in range(len(table))]
    if table.line_origin is None:  # the careful reading placed nothing: nothing given up
        assert table.give_up_lines([0], path) == 0
        return
    table.give_up_lines(list(range(len(table))), path)
    assert [table.line(p) for p in range(len(table))] == lines


async def test_a_line_no_longer_where_it_was_is_an_error_not_another_entry(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copyfile(COMPACTED, path)
    store = await SessionStore.open(path, read_only=True)
    table = store.table
    line = table.line(3)
    assert line is not None
    entry_id = table.ids[3]
    table.give_up_lines([3], path)
    data = path.read_bytes()  # rewritten in place: the same bytes but another id there
    other = entry_id[:-1] + ("0" if entry_id[-1] != "0" else "1")
    path.write_bytes(data.replace(f'"id":"{entry_id}"'.encode(), f'"id":"{other}"'.encode()))
    with pytest.raises(SessionError, match="changed while it was read"):
        table.line(3)


def _printed(argv: list[str]) -> bytes:
    import pitui.modes.session_inspect as inspect_module

    out = io.TextIOWrapper(io.BytesIO())
    with contextlib.redirect_stdout(out):
        assert inspect_module.cmd_context(argv) == 0
    out.flush()
    inspect_module._KEPT.clear()
    buffer = out.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue()


@pytest.mark.parametrize("flags", [["--json"], []], ids=["json", "text"])
def test_session_context_gives_up_the_summarised_lines_and_prints_the_same(
    monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    from pitui.core.session import context as context_module
    from pitui.core.session import table as table_module

    monkeypatch.setattr(context_module, "_LARGE_CONTEXT_BYTES", 0)  # a fixture is small
    given: list[int] = []
    real = table_module.EntryTable.give_up_lines

    def counted(self: table_module.EntryTable, positions: list[int], path: Path) -> int:
        given.append(real(self, positions, path))
        return given[-1]

    monkeypatch.setattr(table_module.EntryTable, "give_up_lines", counted)
    printed = _printed([str(COMPACTED), *flags])
    assert given and given[0] > 0
    monkeypatch.setattr(table_module.EntryTable, "give_up_lines", lambda *_: 0)
    assert _printed([str(COMPACTED), *flags]) == printed


async def test_a_small_context_keeps_its_lines() -> None:
    # Under ~8 MB of context lines the peak is the loading's: freeing the summarised
    # lines would cost ~9 % more instructions (auto-compacted 100k file) for nothing.
    store = await SessionStore.open(COMPACTED, read_only=True)
    context = store.build_context(one_shot=True)
    assert context.summarised and b"" not in store.table.raws
