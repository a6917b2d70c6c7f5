"""What opening a file and reporting its context may cost (issue 26's 100k-entry row).

Opening indexes each entry from its head and parses no entry line in full; the report
reads the not-sent rows from part of their lines, what a compaction replaced from their
sizes (and a sample), and validates no entry into a model but the ones the context is
made of. A change that parses or validates every line again
(a 4x slowdown on a 100k-entry file) fails here, not only in a benchmark.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest

import pitui.core.session.load as load
import pitui.core.session.table as table_module
from pitui.core.context_report import build_context_report
from pitui.core.session.store import SessionStore
from pitui.core.session_setup import SessionOptions, create_agent_session
from tests.core.session.helpers import ORACLE

COMPACTED = ORACLE / "before-compaction.v3.jsonl"


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


async def test_opening_a_current_file_parses_only_its_header_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = _counting(monkeypatch, load, "parse_json_line")
    store = await SessionStore.open(COMPACTED, read_only=True)
    assert store.entry_count() > 500
    assert full[0] == 1  # the header; every entry was indexed from its head


async def test_the_report_reads_rows_without_parsing_or_validating_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = await SessionStore.open(COMPACTED, read_only=True)
    session = await create_agent_session(SessionOptions(cwd=tmp_path, store=store))
    full = _counting(monkeypatch, table_module, "parse_json_line")
    validated = _counting(monkeypatch, table_module, "parse_entry")
    try:
        report = await build_context_report(session)
    finally:
        await session.close()
    assert report.compacted is not None and report.compacted.count > 100
    typed = sum(store.table.is_typed(i) for i in range(store.entry_count()))
    # Only what the context is made of (and the settings it reads) was validated, each
    # entry once; the hundreds of summarised entries cost neither a full parse nor a model.
    assert validated[0] <= typed < len(report.transcript) + 10
    assert full[0] <= validated[0]


def test_opening_validates_no_entry() -> None:
    # The TUI's resume and ``session tree`` open files the same way: no model is built
    # before something asks for an entry.
    store = asyncio.run(SessionStore.open(COMPACTED, read_only=True))
    assert not any(store.table.is_typed(i) for i in range(store.entry_count()))


async def test_a_report_of_a_file_builds_and_validates_its_context_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ``pitui session context FILE``: the session's transcript and the report's are one
    # context, built once (each line it is made of parsed once, each entry validated once).
    import pitui.core.session.context as context_module
    from pitui.core.context_report import report_for_file

    built = _counting(monkeypatch, context_module, "_build")
    full = _counting(monkeypatch, table_module, "parse_json_line")
    validated = _counting(monkeypatch, table_module, "parse_entry")
    report = await report_for_file(COMPACTED, keep_json=True)
    assert built[0] == 1
    assert report.message_json  # the JSON the messages were read from, kept as read
    assert validated[0] < len(report.transcript) + 10
    assert full[0] <= validated[0] + 1  # + the header


async def test_the_report_hands_the_transcript_to_the_converter_without_copying_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # pitui's converters leave their input alone: the request is built from the
    # transcript itself (copying 25,000 messages costs ~0.3 s and ~70 MB).
    import pitui.agent.loop as loop

    copies = _counting(monkeypatch, loop, "deep_clone")
    store = await SessionStore.open(COMPACTED, read_only=True)
    session = await create_agent_session(SessionOptions(cwd=tmp_path, store=store))
    try:
        report = await build_context_report(session)
    finally:
        await session.close()
    assert copies[0] == 0
    sent = [m for m in report.messages if m.source is not None]
    assert any(m.message is report.transcript[m.source] for m in sent if m.source is not None)


async def test_what_a_compaction_replaced_is_sized_without_touching_each_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The sizes of a fast-loaded file's lines are kept from loading: reading them back
    # from 100k line objects spread over 66 MB cost ~25 ms of cache misses. Only the
    # sampled lines are read, and the estimate is the one the lines themselves give.
    import pitui.core.context_unsent as unsent

    store = await SessionStore.open(COMPACTED, read_only=True)
    table = store.table
    assert table.line_sizes is not None
    assert list(table.line_sizes) == [len(cast(bytes, raw)) for raw in table.raws]
    context = store.build_context()
    replaced = context.path[: context.summarised]
    monkeypatch.setattr(unsent, "_TOKEN_SAMPLES", 8)
    read: list[int] = []
    real = table_module.EntryTable.raws_at

    def counted(self: Any, positions: Any) -> Any:
        read.append(len(positions))
        return real(self, positions)

    monkeypatch.setattr(table_module.EntryTable, "raws_at", counted)
    estimate = unsent.estimate_range_tokens(table, replaced)
    assert read and max(read) <= len(replaced) // (len(replaced) // 8) + 1 < len(replaced)
    table.line_sizes = None  # sized from the lines: the same estimate
    assert unsent.estimate_range_tokens(table, replaced) == estimate
    assert max(read) == len(replaced)


async def test_printed_messages_are_kept_as_parts_of_their_lines() -> None:
    # A 25,000-message context keeps its JSON for printing as slices of the lines it
    # was read from, not as 25,000 dicts (44 MB) nor copies.
    from pitui.core.context_report import report_for_file
    from pitui.core.session.table import JsonSlice

    report = await report_for_file(COMPACTED, keep_json=True)
    kept = list(report.message_json.values())
    assert kept and all(isinstance(k, JsonSlice) for k in kept)
    sliced = [k for k in kept if isinstance(k, JsonSlice) and k.stop - k.start < len(k.data)]
    assert len(sliced) > len(kept) // 2  # the rest: numbers pi writes otherwise (5e-6)
