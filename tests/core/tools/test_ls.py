"""The ls tool: dotfiles, directory suffix, case-insensitive order, limits, errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.core.tools.ls import LsTool

from .helpers import run, text


async def test_lists_dotfiles_and_dirs_sorted(tmp_path: Path) -> None:
    (tmp_path / ".hidden-file").write_text("s")
    (tmp_path / ".hidden-dir").mkdir()
    (tmp_path / "Beta.txt").write_text("")
    (tmp_path / "alpha").mkdir()
    os.symlink(tmp_path / "missing-target", tmp_path / "dangling")  # unstat-able: skipped
    result = await run(LsTool(tmp_path))
    assert text(result) == ".hidden-dir/\n.hidden-file\nalpha/\nBeta.txt"
    assert result.details is None


async def test_empty_and_limit(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert text(await run(LsTool(tmp_path), path="empty")) == "(empty directory)"
    for i in range(4):
        (tmp_path / "empty" / f"e{i}").write_text("")
    result = await run(LsTool(tmp_path), path="empty", limit=2)
    assert text(result) == "e0\ne1\n\n[2 entries limit reached. Use limit=4 for more]"
    assert result.details == {"entryLimitReached": 2}


async def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await run(LsTool(tmp_path), path="nope")
    assert str(info.value) == f"Path not found: {tmp_path / 'nope'}"
    (tmp_path / "f").write_text("")
    with pytest.raises(ToolError) as info:
        await run(LsTool(tmp_path), path="f")
    assert str(info.value) == f"Not a directory: {tmp_path / 'f'}"
