"""The find tool: globs, .gitignore (nested, negation), hidden files, limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.core.tools.find import FindTool
from pitui.core.tools.find_fd import default_fd

from .helpers import run, text

FD = os.environ.get("PITUI_TEST_FD") or default_fd()
BACKENDS = [
    "python",
    pytest.param("fd", marks=pytest.mark.skipif(FD is None, reason="fd not installed")),
]


def make(tmp_path: Path, backend: str) -> FindTool:
    if backend == "python":
        return FindTool(tmp_path, force_python=True)
    return FindTool(tmp_path, fd_path=FD)


def lines(result_text: str) -> list[str]:
    return [line for line in result_text.split("\n") if line]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_hidden_included_and_double_star(tmp_path: Path, backend: str) -> None:
    (tmp_path / ".secret").mkdir()
    (tmp_path / ".secret" / "hidden.txt").write_text("h")
    (tmp_path / "visible.txt").write_text("v")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text("never listed")
    out = lines(text(await run(make(tmp_path, backend), pattern="**/*.txt", path=str(tmp_path))))
    assert sorted(out) == [".secret/hidden.txt", "visible.txt"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_gitignore_root_nested_and_negation(tmp_path: Path, backend: str) -> None:
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
    out = lines(text(await run(make(tmp_path, backend), pattern="*")))
    assert out == [
        ".gitignore",
        "keep.log",
        "kept.txt",
        "pkg/",
        "pkg/.gitignore",
        "pkg/build/",
        "pkg/build/x.txt",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_path_patterns_and_directories(tmp_path: Path, backend: str) -> None:
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "a.spec.ts").write_text("")
    (tmp_path / "src" / "deep" / "b.spec.ts").write_text("")
    (tmp_path / "c.spec.ts").write_text("")
    tool = make(tmp_path, backend)
    out = lines(text(await run(tool, pattern="src/**/*.spec.ts")))
    assert sorted(out) == ["src/a.spec.ts", "src/deep/b.spec.ts"]
    assert lines(text(await run(tool, pattern="*.spec.ts", path="src/deep"))) == ["b.spec.ts"]
    assert lines(text(await run(tool, pattern="deep"))) == ["src/deep/"]
    assert lines(text(await run(tool, pattern="src/"))) == ["src/"]
    assert text(await run(tool, pattern="a.spec.ts/")) == "No files found matching pattern"
    assert text(await run(tool, pattern="*.rs")) == "No files found matching pattern"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_limit_notice(tmp_path: Path, backend: str) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("")
    result = await run(make(tmp_path, backend), pattern="*.txt", limit=3)
    shown, notice = text(result).split("\n\n")
    assert len(shown.split("\n")) == 3  # fd stops at any 3 of them
    assert notice == "[3 results limit reached. Use limit=6 for more, or refine pattern]"
    assert result.details == {"resultLimitReached": 3}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_errors(tmp_path: Path, backend: str) -> None:
    with pytest.raises(ToolError) as info:
        await run(make(tmp_path, backend), pattern="*", path="nope")
    assert str(info.value) == f"Path not found: {tmp_path / 'nope'}"
    (tmp_path / "file").write_text("")
    with pytest.raises(ToolError, match=r"^Not a directory: "):
        await run(make(tmp_path, backend), pattern="*", path="file")
