"""The checkpoint engine against real git and real folders: snapshots, ignore rules,
limits, restores, and a project that is hostile to it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pitui import paths
from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.errors import TooManyFiles
from pitui.core.checkpoints.git import git_problem, parse_version
from pitui.core.checkpoints.store import Limits
from pitui.core.checkpoints.trees import list_tree
from tests.core.checkpoints.helpers import hash_tree, make_project


async def _files(engine: CheckpointEngine, tree: str) -> set[str]:
    return set(await list_tree(engine.store.git, tree))


async def test_round_trip_leaves_the_projects_git_untouched(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    before_git = hash_tree(project / ".git")
    engine = CheckpointEngine(project)
    first = await engine.snapshot()
    (project / "app.py").write_text("port = 8080\n")
    (project / "new.txt").write_text("new\n")
    (project / "lib" / "util.py").unlink()
    second = await engine.snapshot()
    assert second.tree != first.tree
    changed = {c.path: c.kind for c in await engine.changes(first.tree, second.tree)}
    assert changed == {"app.py": "modified", "new.txt": "added", "lib/util.py": "deleted"}
    async with engine.locked():
        now = await engine.snapshot_locked()
        outcome = await engine.restore_locked(now.tree, first.tree)
    assert sorted(outcome.written) == ["app.py", "lib/util.py"] and outcome.deleted == ["new.txt"]
    assert (project / "app.py").read_text() == "port = 9090\n"
    assert (await engine.snapshot()).tree == first.tree
    assert hash_tree(project / ".git") == before_git
    store = engine.store.git_dir
    assert store.is_relative_to(paths.home()) and not store.is_relative_to(project)
    assert stat.S_IMODE(store.stat().st_mode) == 0o700


async def test_unchanged_tree_is_the_same_snapshot(tmp_path: Path) -> None:
    engine = CheckpointEngine(make_project(tmp_path / "p"))
    assert (await engine.snapshot()).tree == (await engine.snapshot()).tree


async def test_ignore_rules_and_defaults(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"keep.txt": "k\n", ".gitignore": "build/\n"})
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "exclude").write_text("secret.env\n")
    for name in ("build/out.bin", "secret.env", ".pitui/settings.json", "sub/.git/HEAD"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n")
    engine = CheckpointEngine(project)
    files = await _files(engine, (await engine.snapshot()).tree)
    assert files == {"keep.txt", ".gitignore"}


async def test_restore_never_touches_ignored_files(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"a.txt": "a\n"})
    engine = CheckpointEngine(project)
    (project / "gen.txt").write_text("tracked once\n")
    old = await engine.snapshot()
    (project / "gen.txt").write_text("now ignored, user data\n")
    (project / ".gitignore").write_text("gen.txt\n")
    async with engine.locked():
        now = await engine.snapshot_locked()
        outcome = await engine.restore_locked(now.tree, old.tree)
    assert ("gen.txt", "ignored by the project") in outcome.skipped
    assert (project / "gen.txt").read_text() == "now ignored, user data\n"
    assert not (project / ".gitignore").exists()  # it was not in the old checkpoint


async def test_oversize_files_are_skipped_once_and_never_restored(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"a.txt": "a\n"})
    engine = CheckpointEngine(project, Limits(max_file_bytes=100))
    (project / "big.bin").write_bytes(b"x" * 50)
    small = await engine.snapshot()
    (project / "big.bin").write_bytes(b"y" * 500)
    first = await engine.snapshot()
    assert first.newly_skipped == ["big.bin"]
    assert "big.bin" not in await _files(engine, first.tree)
    again = await engine.snapshot()
    assert again.newly_skipped == [] and again.tree == first.tree
    async with engine.locked():
        now = await engine.snapshot_locked()
        outcome = await engine.restore_locked(now.tree, small.tree)
    assert outcome.skipped == [("big.bin", "over the size limit")]
    assert (project / "big.bin").read_bytes() == b"y" * 500
    (project / "big.bin").write_bytes(b"z" * 10)  # back under the limit: saved again
    assert "big.bin" in await _files(engine, (await engine.snapshot()).tree)


async def test_too_many_files_turns_it_off(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {f"f{i}.txt": "x\n" for i in range(8)})
    engine = CheckpointEngine(project, Limits(max_files=5))
    with pytest.raises(TooManyFiles, match=r"checkpoints\.maxFiles"):
        await engine.snapshot()


async def test_a_hostile_project_changes_nothing(tmp_path: Path) -> None:
    """Attributes, filters, fsmonitor and hooks that a repository ships are all ignored:
    bytes come back exactly and nothing runs."""
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    evil.chmod(0o755)
    project = make_project(tmp_path / "p", {"a.txt": "a\r\nb\n"})
    (project / ".gitattributes").write_text("* text eol=crlf filter=evil ident\n")
    config = project / ".git" / "config"
    config.write_text(
        config.read_text() + f'[core]\n\tfsmonitor = {evil}\n[filter "evil"]\n\tclean = {evil}\n'
    )
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text(evil.read_text())
    hook.chmod(0o755)
    os.environ["GIT_DIR"] = str(project / ".git")  # an inherited variable is dropped too
    try:
        engine = CheckpointEngine(project)
        first = await engine.snapshot()
        (project / "a.txt").write_bytes(b"changed $Id$\n")
        async with engine.locked():
            now = await engine.snapshot_locked()
            await engine.restore_locked(now.tree, first.tree)
    finally:
        del os.environ["GIT_DIR"]
    assert (project / "a.txt").read_bytes() == b"a\r\nb\n"
    assert not marker.exists()


async def test_restore_stays_inside_the_project(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = make_project(tmp_path / "p", {"a.txt": "a\n"})
    (project / "d").mkdir()
    (project / "d" / "f.txt").write_text("old\n")
    engine = CheckpointEngine(project)
    old = await engine.snapshot()
    (project / "d" / "f.txt").unlink()
    (project / "d").rmdir()
    (project / "d").symlink_to(outside)  # d/ now leads out of the project
    async with engine.locked():
        now = await engine.snapshot_locked()
        outcome = await engine.restore_locked(now.tree, old.tree)
    assert ("d/f.txt", "outside the project (a symlinked folder)") in outcome.skipped
    assert list(outside.iterdir()) == []


async def test_symlinks_and_modes_come_back(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"run.sh": "echo\n"})
    (project / "run.sh").chmod(0o755)
    (project / "link").symlink_to("run.sh")
    engine = CheckpointEngine(project)
    old = await engine.snapshot()
    (project / "link").unlink()
    (project / "run.sh").chmod(0o644)
    (project / "run.sh").write_text("changed\n")
    async with engine.locked():
        now = await engine.snapshot_locked()
        await engine.restore_locked(now.tree, old.tree)
    assert os.readlink(project / "link") == "run.sh"
    assert os.access(project / "run.sh", os.X_OK)
    assert (project / "run.sh").read_text() == "echo\n"


async def test_without_git_the_feature_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    problem = await git_problem()
    assert problem is not None and "git is not installed" in problem


def test_version_parsing() -> None:
    assert parse_version("git version 2.39.5") == (2, 39, 5)
    assert parse_version("git version 2.25.1.windows.1")[:2] == (2, 25)  # type: ignore[index]
    assert parse_version("nonsense") is None


async def test_a_project_holding_the_pitui_home_never_snapshots_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "home-dir", {"notes.txt": "n\n"})
    monkeypatch.setenv("PITUI_HOME", str(project / ".pitui-home"))
    engine = CheckpointEngine(project)
    first = await engine.snapshot()
    (project / "notes.txt").write_text("changed\n")
    second = await engine.snapshot()
    assert await _files(engine, second.tree) == {"notes.txt"}
    assert first.tree != second.tree
