"""The write tool: creates parents, overwrites, reports pi's (UTF-16) length."""

from __future__ import annotations

from pathlib import Path

from pitui.core.tools.write import WriteTool

from .helpers import run, text


async def test_write_creates_parents_and_reports(tmp_path: Path) -> None:
    result = await run(WriteTool(tmp_path), path="nested/dir/a.txt", content="Test content")
    assert text(result) == "Successfully wrote 12 bytes to nested/dir/a.txt"
    assert result.details is None
    assert (tmp_path / "nested/dir/a.txt").read_text() == "Test content"


async def test_write_overwrites_and_keeps_line_endings(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old content that is longer")
    await run(WriteTool(tmp_path), path=str(target), content="a\r\nb\n")
    assert target.read_bytes() == b"a\r\nb\n"


async def test_length_counts_utf16_units(tmp_path: Path) -> None:
    result = await run(WriteTool(tmp_path), path="e.txt", content="é😀")
    assert text(result) == "Successfully wrote 3 bytes to e.txt"
    assert (tmp_path / "e.txt").read_text(encoding="utf-8") == "é😀"
