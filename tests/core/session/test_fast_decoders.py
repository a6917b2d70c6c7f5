"""The msgspec decoders that read only part of a line agree with the full parser.

Opening a file indexes each line from its head (type, id, parent, role, label target),
and the context report's not-sent rows read only the keys a row needs. Both must see
exactly what the full parse of the line gives, and accept and reject the same lines:
checked on every line of the fixture sessions and of the fuzz test's mutants.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import asdict

import pitui.core.session.load as load
from pitui.core.compaction.tokens import estimate_raw_entry
from pitui.core.context_unsent import _entry_reason
from pitui.core.session.load import EntryHead, _head_of, parse_head, parse_session_bytes
from pitui.core.session.row_fields import row_fields
from pitui.core.session.table import EntryTable, parse_json_line
from pitui.core.session.tree_rows import has_text, row_text, search_text, tool_calls_of
from pitui.errors import SessionError
from tests.core.session.mutants import mutants

FIXTURES = Path(__file__).parents[2] / "fixtures"
_ODD_LINES = [
    b'{"type":"message","id":"a","x":"\\ud800"}',  # a lone surrogate escape: JSON.parse takes it
    b'{"type":"message","id":"a","x":NaN}',
    b'{"type":"message","id":"a","x":"\xff\xfe"}',  # bad UTF-8 inside a string
    b'{"type":"message","id":"a","x":123456789012345678901234567890}',
    b'{"type":"a","type":"b","id":"x","id":"y"}',  # duplicate keys: the last wins
    b'{"type":"message","message":{"role":"user","role":"assistant"}}',
    b'{"type":"message","message":"text"}',
    b'{"type":"message","message":[1]}',
    b'{"type":"message","message":{"role":["x"]}}',
    b'{"type":"label","targetId":{},"label":5}',
    b"[1,2]",
    b'"text"',
    b'{"type":"message"} trailing',
    b'{"type":"message",',
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' + b"[" * 5000 + b"]" * 5000 + b"}",
]


def _lines() -> Iterator[bytes]:
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        yield from path.read_bytes().split(b"\n")
    for _, data in mutants(60):
        yield from data.split(b"\n")
    yield from _ODD_LINES


LINES = [line for line in dict.fromkeys(_lines()) if line.strip()]


def _full(line: bytes) -> Any:
    try:
        return parse_json_line(line)
    except ValueError:
        return ValueError


def test_the_corpus_is_large() -> None:
    assert len(LINES) > 1000


@pytest.mark.parametrize("start", range(0, 8))
def test_a_head_is_the_head_of_the_full_parse(start: int) -> None:
    for line in LINES[start::8]:
        full = _full(line)
        try:
            head: Any = parse_head(line)
        except ValueError:
            head = ValueError
        if full.__class__ is dict:
            assert head == _head_of(full), line[:200]
            assert head.__class__ is EntryHead
        else:
            assert head == full, line[:200]  # the same value, or both refuse the line


def _calls(raw: Any) -> list[tuple[str, str, Any]]:
    message = raw.get("message")
    return tool_calls_of(message) if isinstance(message, dict) else []


KNOWN_CALLS = {
    call_id: (name, args)
    for line in LINES
    if (full := _full(line)).__class__ is dict
    for call_id, name, args in _calls(full)
}
"""Every tool call of the corpus, so that tool-result rows name their call."""


def _row(raw: Any) -> tuple[Any, ...]:
    kind = str(raw.get("type"))
    message = raw.get("message")
    message = message if isinstance(message, dict) else {}
    return (
        has_text(message.get("content")),
        message.get("stopReason"),
        row_text(raw, KNOWN_CALLS),
        search_text(raw, None),
        search_text(raw, "a label"),
        estimate_raw_entry(raw),
        _calls(raw),
        _entry_reason(kind, raw),
    )


@pytest.mark.parametrize("start", range(0, 8))
def test_a_row_read_from_part_of_the_line_equals_the_row_of_the_whole(start: int) -> None:
    table = EntryTable()
    for line in LINES[start::8]:
        full = _full(line)
        if full.__class__ is not dict:
            continue
        position = table.add_raw(line, f"e{len(table)}", None, str(full.get("type")))
        assert _row(row_fields(table, position)) == _row(full), line[:200]


def _files() -> Iterator[bytes]:
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        yield path.read_bytes()
    for _, data in mutants(250):
        yield data
    header = FIXTURES.joinpath("pi-oracle", "before-compaction.v3.jsonl").read_bytes()
    head, _, rest = header.partition(b"\n")
    entries = rest.split(b"\n")[:6]
    body = b"\n".join(entries) + b"\n"
    yield head + b"\n" + body  # sound
    yield head + b"\n" + body.rstrip(b"\n")  # no newline at the end
    yield head + b"\n" + entries[0] + b"\n\n  \n" + body  # blank lines, a duplicate id
    yield head + b"\n" + head + b"\n" + body  # a second header
    for odd in _ODD_LINES:
        yield head + b"\n" + entries[0] + b"\n" + odd + b"\n" + body


def _loaded(data: bytes) -> tuple[Any, ...] | None:
    """What loading gives, all of it (None for a file migration gives new ids)."""
    loaded = parse_session_bytes(data)
    if loaded.report.migrated_from is not None:
        return None
    table = loaded.table
    return (
        loaded.header,
        loaded.objects,
        loaded.labels,
        asdict(loaded.report),
        table.raws,
        table.ids,
        table.parents,
        table.types,
        table.roles,
        table.index,
        table.parent_positions(),
    )


def test_a_sound_file_is_indexed_in_one_pass_as_line_by_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    used = 0
    for data in _files():
        try:
            fast = _loaded(data)
        except SessionError:
            fast = None
        with monkeypatch.context() as patched:
            patched.setattr(load, "_fast_table", lambda *_: None)
            try:
                careful = _loaded(data)
            except SessionError:
                careful = None
        assert fast == careful
        if fast is not None:
            lines = data.split(b"\n")
            used += load._fast_table(lines, 1, load.LoadReport()) is not None
    assert used > 100  # most files take the one pass
