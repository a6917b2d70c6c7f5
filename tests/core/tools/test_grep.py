"""The grep tool, through the pure-Python fallback always and ripgrep when available.

ripgrep is optional: tests of its path run when ``rg`` is on PATH or ``PITUI_TEST_RG``
names a binary, so both finders are held to the same output.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.ai.abort import AbortSignal
from pitui.core.tools.grep import GrepTool

from .helpers import run, text

RG = os.environ.get("PITUI_TEST_RG") or shutil.which("rg")
BACKENDS = [
    "python",
    pytest.param("rg", marks=pytest.mark.skipif(RG is None, reason="ripgrep not installed")),
]


def make(tmp_path: Path, backend: str) -> GrepTool:
    if backend == "python":
        return GrepTool(tmp_path, force_python=True)
    return GrepTool(tmp_path, rg_path=RG)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small tree with a .git directory whose contents must never be searched."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "COMMIT_EDITMSG").write_text("TODO never searched\n")
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "a.py").write_text("import os\nTODO: one\n")
    (tmp_path / "src" / "deep" / "b.py").write_text("x = 1\n# TODO two\n")
    (tmp_path / "notes.txt").write_text("todo lower\nTODO upper\n")
    (tmp_path / ".hidden.txt").write_text("TODO hidden\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.txt").write_text("TODO ignored\n")
    (tmp_path / "skip.log").write_text("TODO ignored too\n")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "bin.dat").write_bytes(b"TODO\x00\x01binary")
    return tmp_path


@pytest.mark.parametrize("backend", BACKENDS)
async def test_single_file_shows_basename(tmp_path: Path, backend: str) -> None:
    (tmp_path / "example.txt").write_text("first line\nmatch line\nlast line")
    result = await run(make(tmp_path, backend), pattern="match", path="example.txt")
    assert text(result) == "example.txt:2: match line"
    assert result.details is None


@pytest.mark.parametrize("backend", BACKENDS)
async def test_limit_and_context(tmp_path: Path, backend: str) -> None:
    content = "before\nmatch one\nafter\nmiddle\nmatch two\nafter two"
    (tmp_path / "context.txt").write_text(content)
    result = await run(
        make(tmp_path, backend), pattern="match", path="context.txt", limit=1, context=1
    )
    assert text(result) == (
        "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n"
        "[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    )
    assert result.details == {"matchLimitReached": 1}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_tree_search_respects_gitignore_and_shows_hidden(repo: Path, backend: str) -> None:
    result = await run(make(repo, backend), pattern="TODO")
    assert sorted(text(result).split("\n")) == [
        ".hidden.txt:1: TODO hidden",
        "notes.txt:2: TODO upper",
        "src/a.py:2: TODO: one",
        "src/deep/b.py:2: # TODO two",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_flags_and_globs(repo: Path, backend: str) -> None:
    tool = make(repo, backend)
    out = text(await run(tool, pattern="todo", ignoreCase=True, path="notes.txt"))
    assert out == "notes.txt:1: todo lower\nnotes.txt:2: TODO upper"
    out = text(await run(tool, pattern="TODO", glob="*.py"))
    assert sorted(out.split("\n")) == ["src/a.py:2: TODO: one", "src/deep/b.py:2: # TODO two"]
    out = text(await run(tool, pattern="TODO", glob="src/deep/*.py"))
    assert out == "src/deep/b.py:2: # TODO two"
    (repo / "lit.txt").write_text("a.c\nabc\n")
    assert text(await run(tool, pattern="a.c", literal=True, path="lit.txt")) == "lit.txt:1: a.c"
    assert text(await run(tool, pattern="a.c", path="lit.txt")).count("\n") == 1
    assert text(await run(tool, pattern="nothing-here")) == "No matches found"
    (repo / "dash.txt").write_text("a --flag b\n")
    assert text(await run(tool, pattern="--flag", path="dash.txt")) == "dash.txt:1: a --flag b"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_long_lines_and_byte_limit(tmp_path: Path, backend: str) -> None:
    (tmp_path / "long.txt").write_text("hit " + "y" * 600 + "\n")
    result = await run(make(tmp_path, backend), pattern="hit", path="long.txt")
    assert text(result) == (
        "long.txt:1: hit " + "y" * 496 + "... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert result.details == {"linesTruncated": True}
    (tmp_path / "many.txt").write_text("".join(f"hit {i} {'z' * 400}\n" for i in range(300)))
    result = await run(make(tmp_path, backend), pattern="hit", path="many.txt", limit=200)
    out = text(result)
    assert out.endswith(
        "\n\n[200 matches limit reached. Use limit=400 for more, or refine pattern. "
        "50.0KB limit reached]"
    )
    assert result.details is not None
    assert result.details["truncation"]["truncatedBy"] == "bytes"
    assert result.details["matchLimitReached"] == 200


@pytest.mark.parametrize("backend", BACKENDS)
async def test_crlf_lines_are_shown_clean(tmp_path: Path, backend: str) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"one\r\ntwo end\r\n")
    out = text(await run(make(tmp_path, backend), pattern="end$", path="crlf.txt"))
    assert out in ("crlf.txt:2: two end", "No matches found")  # rg's $ stops at \n, not \r


@pytest.mark.parametrize("backend", BACKENDS)
async def test_errors(tmp_path: Path, backend: str) -> None:
    tool = make(tmp_path, backend)
    with pytest.raises(ToolError) as info:
        await run(tool, pattern="x", path="missing")
    assert str(info.value) == f"Path not found: {tmp_path / 'missing'}"
    (tmp_path / "f.txt").write_text("x\n")
    with pytest.raises(ToolError, match="regex parse error"):
        await run(tool, pattern="(unclosed", path="f.txt")
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await run(tool, signal=signal, pattern="x")


def test_default_uses_rg_only_when_found(tmp_path: Path) -> None:
    assert GrepTool(tmp_path, force_python=True).rg_path is None
    assert GrepTool(tmp_path).rg_path == shutil.which("rg")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_gitignore_outside_git_work_tree(tmp_path: Path, backend: str) -> None:
    (tmp_path / ".gitignore").write_text("secret.txt\n")
    (tmp_path / "secret.txt").write_text("needle\n")
    (tmp_path / "open.txt").write_text("needle\n")
    assert text(await run(make(tmp_path, backend), pattern="needle")) == "open.txt:1: needle"
