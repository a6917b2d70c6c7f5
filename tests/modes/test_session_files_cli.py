"""``pitui session files|restore|checkpoints`` as a user runs them: real processes, real
git, a real project with a ``.git`` of its own (hashed: never written)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from pitui.agent.messages import parse_agent_message
from pitui.ai.types import TextContent, UserMessage
from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.session_files import SessionFiles
from pitui.core.session.store import SessionStore
from tests.core.checkpoints.helpers import hash_tree, make_project
from tests.core.session.helpers import assistant
from tests.modes.loopback import pitui_command, run_pitui


def _work_tree(project: Path) -> str:
    """A digest of the project without its ``.git``."""
    hidden = project / ".git"
    moved = project.parent / "git-aside"
    hidden.rename(moved)
    try:
        return hash_tree(project)
    finally:
        moved.rename(hidden)


async def _session_with_two_points(
    project: Path, versions: list[dict[str, str]]
) -> tuple[Path, list[str]]:
    """A session whose checkpoints hold ``versions`` of the files, in order."""
    store = SessionStore.create(project, project.parent / "sessions")
    files = SessionFiles(CheckpointEngine(project), store)
    ids = []
    for number, version in enumerate(versions):
        for name, text in version.items():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_text(text)
        await store.append_message(UserMessage(content=[TextContent(text=f"turn {number}")]))
        await store.append_message(parse_agent_message(assistant(f"done {number}")))
        recorded = await files.record("manual")
        assert recorded is not None
        ids.append(recorded.entry_id)
    assert store.path is not None
    path = store.path
    await store.close()
    return path, ids


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pitui(project, "session", *args)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", {"app.py": "port = 9090\n", "keep.txt": "k\n"})


def test_restore_round_trip_back_and_forward(project: Path) -> None:
    git_before = hash_tree(project / ".git")
    session, (first, second) = asyncio.run(
        _session_with_two_points(project, [{}, {"app.py": "port = 8080\n", "new.py": "n\n"}])
    )
    at_second = _work_tree(project)
    (project / "scratch.txt").write_text("typed by hand\n")  # outside pitui
    back = _run(project, "restore", str(session), "--to", first[:5], "--json")
    assert back.returncode == 0, back.stderr
    report: dict[str, Any] = json.loads(back.stdout)
    assert report["outside"] == ["scratch.txt"]
    assert (project / "app.py").read_text() == "port = 9090\n"
    assert not (project / "new.py").exists() and not (project / "scratch.txt").exists()
    at_first = _work_tree(project)
    forward = _run(project, "restore", str(session), "--to", second)
    assert forward.returncode == 0, forward.stderr
    assert _work_tree(project) == at_second
    again = _run(project, "restore", str(session), "--to", first)
    assert again.returncode == 0 and _work_tree(project) == at_first
    # The hand-typed file lives in the first pre-restore checkpoint.
    saved = _run(project, "restore", str(session), "--to", report["preRestore"]["entryId"])
    assert saved.returncode == 0, saved.stderr
    assert (project / "scratch.txt").read_text() == "typed by hand\n"
    assert hash_tree(project / ".git") == git_before


def test_files_lists_and_diffs_and_dry_run_changes_nothing(project: Path) -> None:
    session, (first, _) = asyncio.run(
        _session_with_two_points(project, [{}, {"app.py": "port = 8080\n"}])
    )
    listed = _run(project, "files", str(session), "--at", first, "--diff")
    assert listed.returncode == 0, listed.stderr
    assert "1 file differ" in listed.stdout and "M app.py" in listed.stdout
    assert "-port = 8080\n+port = 9090" in listed.stdout
    before = _work_tree(project)
    dry = _run(project, "restore", str(session), "--to", first, "--dry-run", "--json")
    assert json.loads(dry.stdout)["changes"] == [{"path": "app.py", "kind": "modified"}]
    assert _work_tree(project) == before


def test_clear_errors_outside_the_project_or_without_a_store(
    project: Path, tmp_path: Path, pitui_home: Path
) -> None:
    session, (first, _) = asyncio.run(_session_with_two_points(project, [{}, {"a": "b"}]))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    wrong = run_pitui(elsewhere, "session", "restore", str(session), "--to", first)
    assert wrong.returncode == 1
    assert "not the current folder" in wrong.stderr and "Traceback" not in wrong.stderr
    unknown = _run(project, "files", str(session), "--at", "zzzz")
    assert unknown.returncode == 1 and "No entry 'zzzz' in this session" in unknown.stderr
    for store in (pitui_home / "projects").iterdir():
        subprocess.run(["rm", "-rf", str(store)], check=True)
    missing = _run(project, "restore", str(session), "--to", first)
    assert missing.returncode == 1 and "No checkpoint store" in missing.stderr


def test_prune_keeps_what_sessions_name(project: Path) -> None:
    session, (first, _second) = asyncio.run(
        _session_with_two_points(project, [{}, {"app.py": "port = 1\n"}])
    )
    pruned = _run(project, "checkpoints", "--prune", "--json")
    assert pruned.returncode == 0, pruned.stderr
    assert json.loads(pruned.stdout)["trees"] == 2
    back = _run(project, "restore", str(session), "--to", first)
    assert back.returncode == 0 and (project / "app.py").read_text() == "port = 9090\n"


def _versions(count: int) -> tuple[dict[str, str], dict[str, str]]:
    old = {f"src/f{i:04d}.txt": f"old {i}\n" + "o" * 16_000 for i in range(count)}
    new = {name: f"new {i}\n" + "n" * 16_000 for i, name in enumerate(old)}
    return old, new


def test_sigkill_mid_restore_leaves_every_file_whole(project: Path) -> None:
    old, new = _versions(800)
    session, (first, _second) = asyncio.run(_session_with_two_points(project, [old, new]))
    journal = CheckpointEngine(project).store.journal_path
    (project / "keep.txt").write_text("changed outside pitui\n")  # a pre-restore entry
    proc = subprocess.Popen(
        pitui_command("session", "restore", str(session), "--to", first),
        cwd=project,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    first_name = next(iter(old))
    first_file = project / first_name
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if journal.exists() and first_file.read_text() == old[first_name]:
            break  # the first file is written: the restore is under way
        time.sleep(0.0005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    states = {"old": 0, "new": 0}
    for name in old:
        text = (project / name).read_text()
        assert text in (old[name], new[name]), f"{name} is neither old nor new"
        states["old" if text == old[name] else "new"] += 1
    assert states["old"] > 0 and states["new"] > 0, f"the kill missed the restore: {states}"
    lines = [json.loads(line) for line in session.read_text().splitlines()]
    pre = [line for line in lines if line.get("data", {}).get("reason") == "beforeRestore"]
    assert len(pre) == 1  # written before the first file was
    # Finishing the job from the pre-restore checkpoint's point of view: every file back.
    finish = _run(project, "restore", str(session), "--to", pre[0]["id"])
    assert finish.returncode == 0, finish.stderr
    assert all((project / name).read_text() == new[name] for name in new)
    assert (project / "keep.txt").read_text() == "changed outside pitui\n"
    leftovers = [p for p in project.rglob("*") if ".pitui-restore-" in p.name]
    assert leftovers == []
