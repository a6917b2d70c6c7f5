"""The find tool: globs, .gitignore (nested, negation), hidden files, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.core.tools.find import FindTool

from .helpers import run, text


def lines(result_text: str) -> list[str]:
    return [line for line in result_text.split("\n") if line]


async def test_hidden_included_and_double_star(tmp_path: Path) -> None:
    (tmp_path / ".secret").mkdir()
    (tmp_path / ".secret" / "hidden.txt").write_text("h")
    (tmp_path / "visible.txt").write_text("v")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text("never listed")
    out = lines(text(await run(FindTool(tmp_path), pattern="**/*.txt", path=str(tmp_path))))
    assert sorted(out) == [".secret/hidden.txt", "visible.txt"]


async def test_gitignore_root_nested_and_negation(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("ignored.txt\n/build/\n*.log\n!keep.log\n")
    for name in ("ignored.txt", "kept.txt", "a.log", "keep.log"):
        (tmp_path / name).write_text("x")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.txt").write_text("x")
    sub = tmp_path / "pkg"
    (sub / "build").mkdir(parents=True)
    (sub / "build" / "x.txt").write_text("x")  # /build/ is anchored to the root only
    (sub / ".gitignore").write_text("local.txt\n")
    (sub / "local.txt").write_text("x")
    (sub / "ignored.txt").write_text("x")  # unanchored: ignored at any depth
    out = lines(text(await run(FindTool(tmp_path), pattern="*")))
    assert sorted(out) == [
        ".gitignore",
        "keep.log",
        "kept.txt",
        "pkg/",
        "pkg/.gitignore",
        "pkg/build/",
        "pkg/build/x.txt",
    ]


async def test_path_patterns_and_directories(tmp_path: Path) -> None:
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "a.spec.ts").write_text("")
    (tmp_path / "src" / "deep" / "b.spec.ts").write_text("")
    (tmp_path / "c.spec.ts").write_text("")
    tool = FindTool(tmp_path)
    out = lines(text(await run(tool, pattern="src/**/*.spec.ts")))
    assert sorted(out) == ["src/a.spec.ts", "src/deep/b.spec.ts"]
    assert lines(text(await run(tool, pattern="*.spec.ts", path="src/deep"))) == ["b.spec.ts"]
    assert lines(text(await run(tool, pattern="deep"))) == ["src/deep/"]
    assert text(await run(tool, pattern="*.rs")) == "No files found matching pattern"


async def test_limit_notice(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("")
    result = await run(FindTool(tmp_path), pattern="*.txt", limit=3)
    assert text(result) == (
        "f0.txt\nf1.txt\nf2.txt\n\n"
        "[3 results limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert result.details == {"resultLimitReached": 3}


async def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await run(FindTool(tmp_path), pattern="*", path="nope")
    assert str(info.value) == f"Path not found: {tmp_path / 'nope'}"
    (tmp_path / "file").write_text("")
    with pytest.raises(ToolError, match=r"^Not a directory: "):
        await run(FindTool(tmp_path), pattern="*", path="file")
