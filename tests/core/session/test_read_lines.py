"""read_lines: a file's lines read in chunks equal the whole file split at newlines."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.core.session import load
from pitui.core.session.load import needs_newline, parse_session_bytes, parse_session_lines


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"a",
        b"a\n",
        b"a\nb",
        b"a\n\nb\n",
        b"\n\n",
        b"x" * 10 + b"\n" + b"y" * 7,
        b"a\r\nb\rc\n",
    ],
)
@pytest.mark.parametrize("chunk", [1, 2, 3, 64])
def test_read_lines_splits_as_bytes_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, chunk: int
) -> None:
    monkeypatch.setattr(load, "_CHUNK", chunk)  # boundaries inside and at line ends
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    lines = load.read_lines(str(path))
    assert lines == data.split(b"\n")
    assert needs_newline(lines) == (bool(data) and not data.endswith(b"\n"))


def test_lines_and_bytes_parse_alike() -> None:
    header = b'{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}'
    entry = b'{"type":"label","id":"a","parentId":null,"timestamp":"t","targetId":"x"}'
    for data in (header + b"\n" + entry + b"\n", header + b"\n" + entry, header + b'\n{"ty'):
        by_bytes = parse_session_bytes(data)
        by_lines = parse_session_lines(data.split(b"\n"))
        assert by_lines.report == by_bytes.report
        assert by_lines.table.ids == by_bytes.table.ids
