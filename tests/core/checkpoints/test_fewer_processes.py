"""What a checkpoint answers without starting git: the git version noted once per binary,
the tree of an index that did not change, a first checkpoint's file list read from the
index; and the store's lock let go by a waiter that was cancelled."""

from __future__ import annotations

import asyncio
import fcntl
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui import paths
from pitui.core.checkpoints import git as git_module
from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.git import Git, GitResult, git_problem
from pitui.core.checkpoints.index_reader import index_paths
from pitui.core.checkpoints.trees import EMPTY_TREE
from tests.core.checkpoints.helpers import make_project


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The git commands run for the shadow store, by name, as they start."""
    calls: list[str] = []
    real = Git.run

    async def run(self: Git, *args: str, **kw: object) -> GitResult:
        calls.append(args[0])
        return await real(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Git, "run", run)
    yield calls


async def test_the_git_version_is_asked_once_per_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(git_module, "_version_cache", {})
    assert await git_problem() is None
    assert paths.git_version_cache().is_file()

    async def no_git(executable: str) -> None:
        raise AssertionError("git --version was started again")

    monkeypatch.setattr(git_module, "_ask_version", no_git)
    monkeypatch.setattr(git_module, "_version_cache", {})  # a new process
    assert await git_problem() is None


async def test_another_git_binary_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "bin" / "git"
    old.parent.mkdir()
    old.write_text("#!/bin/sh\necho 'git version 2.20.1'\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", str(old.parent))
    monkeypatch.setattr(git_module, "_version_cache", {})
    problem = await git_problem()
    assert problem is not None and "git 2.20.1 is too old" in problem
    old.write_text("#!/bin/sh\necho 'git version 2.45.0'\n")  # upgraded in place
    monkeypatch.setattr(git_module, "_version_cache", {})
    assert await git_problem() is None


async def test_an_unchanged_index_answers_its_tree_without_write_tree(
    tmp_path: Path, git_calls: list[str]
) -> None:
    project = make_project(tmp_path / "p")
    engine = CheckpointEngine(project)
    first = await engine.snapshot()
    git_calls.clear()
    assert (await engine.snapshot()).tree == first.tree
    assert git_calls == ["ls-files"]
    (project / "app.py").write_text("port = 8080\n")
    changed = await engine.snapshot()
    assert changed.tree != first.tree and "write-tree" in git_calls
    # The index rewritten behind pitui's back (another git on the store): asked again.
    # (Forced: git rewrites an index whose entries did not change only when they were
    # racily clean, i.e. depending on the clock.)
    await engine.store.git.run(
        "update-index", "--really-refresh", "--force-write-index", check=False
    )
    git_calls.clear()
    assert (await engine.snapshot()).tree == changed.tree
    assert git_calls == ["ls-files", "write-tree"]


async def test_a_first_checkpoint_lists_its_files_from_the_index(
    tmp_path: Path, git_calls: list[str]
) -> None:
    names = {"app.py": "a\n", "lib/util.py": "u\n", "lib.txt": "l\n", "é/ü.txt": "x\n"}
    names[f"deep/{'n' * 200}.txt"] = "long name\n"
    project = make_project(tmp_path / "p", names)
    engine = CheckpointEngine(project)
    async with engine.locked():
        snap = await engine.snapshot_locked()
        git_calls.clear()
        listed = await engine.changed_paths_locked(EMPTY_TREE, snap.tree)
    assert git_calls == []
    assert listed == [c.path for c in await engine.changes(EMPTY_TREE, snap.tree)]
    assert set(listed) == set(names)


def _index_of(project: Path) -> str:
    return str(project / ".git" / "index")


def _git(project: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)


def test_index_formats_read_and_refused(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"b.txt": "b\n", "a/c.txt": "c\n"})
    nested = make_project(project / "sub", {"inner.txt": "i\n"})
    _git(project, "add", "sub")  # a nested repository: a gitlink, no file
    assert (nested / ".git").is_dir()
    assert index_paths(_index_of(project)) == ["a/c.txt", "b.txt"]
    _git(project, "update-index", "--index-version", "3")
    _git(project, "update-index", "--skip-worktree", "b.txt")  # an extended entry
    assert index_paths(_index_of(project)) == ["a/c.txt", "b.txt"]
    _git(project, "update-index", "--index-version", "4")  # prefix-compressed: git says
    assert index_paths(_index_of(project)) is None
    assert index_paths(str(tmp_path / "missing")) is None


async def test_a_cancelled_waiter_lets_the_lock_go(tmp_path: Path) -> None:
    engine = CheckpointEngine(make_project(tmp_path / "p"))
    await engine.snapshot()  # the store exists
    fds = len(os.listdir("/proc/self/fd"))
    held = os.open(engine.store.git_dir / "pitui.lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # another pitui process holds it

    async def wait_for_lock() -> None:
        async with engine.locked():
            raise AssertionError("the lock was held elsewhere")

    waiter = asyncio.ensure_future(wait_for_lock())
    await asyncio.sleep(0.05)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    os.close(held)  # the other process is done: the waiting thread gets the lock…
    async with asyncio.timeout(5), engine.locked():  # …and lets it go at once
        pass
    # Its file closed (another fd of the process, a git pipe or a write finishing in a
    # thread, may still close a moment later on a busy machine).
    for _ in range(100):
        if len(os.listdir("/proc/self/fd")) <= fds:
            break
        await asyncio.sleep(0.02)
    assert len(os.listdir("/proc/self/fd")) <= fds


async def test_a_checkpoint_reads_its_state_file_only_when_another_wrote_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot and the note of a checkpoint share what this process last wrote;
    a state written by another pitui (another store object here) is read again."""
    project = make_project(tmp_path / "p")
    engine = CheckpointEngine(project)
    state_file = engine.store.state_file
    reads: list[Path] = []
    real = Path.read_text

    def read_text(self: Path, *args: object, **kw: object) -> str:
        if self == state_file:
            reads.append(self)
        return real(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", read_text)
    first = await engine.snapshot()
    engine.note_last_tree(first.tree)
    (project / "app.py").write_text("port = 8080\n")
    second = await engine.snapshot()
    engine.note_last_tree(second.tree)
    assert len(reads) <= 1  # at most the first look at a store made before
    reads.clear()
    other = CheckpointEngine(project)  # another process's view of the same store
    other.note_last_tree(first.tree)
    assert await engine.last_known() == first.tree
    assert len(reads) == 2  # the other's first look, then ours after its write
