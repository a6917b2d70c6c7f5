"""A session named by its id, or the start of it (issue 22 items 2 and 17), as pi 1.6's
``--session``: an argument with a path separator or the ``.jsonl`` ending is a path;
anything else is looked up among the sessions of the project, then of every project.

Real processes on session files in the pitui home.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.session.ids import encode_cwd
from tests.core.session.helpers import assistant, entry
from tests.modes.loopback import run_pitui

IDS = ("ed88ac26-1111-4111-8111-111111111111", "ed88ac26-2222-4222-8222-222222222222")
OTHER = "0b5e55ed-3333-4333-8333-333333333333"


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _write(home: Path, cwd: Path, session_id: str, text: str) -> Path:
    folder = home / "sessions" / encode_cwd(str(cwd))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": str(cwd),
    }
    user = entry("a1", None, message={"role": "user", "content": text, "timestamp": 1})
    reply = entry("a2", "a1", message=assistant("done"))
    path.write_text("".join(json.dumps(o) + "\n" for o in (header, user, reply)))
    return path


@pytest.fixture
def project(tmp_path: Path, pitui_home: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    _write(pitui_home, root, IDS[0], "first session")
    _write(pitui_home, root, IDS[1], "second session")
    _write(pitui_home, tmp_path / "elsewhere", OTHER, "another project")
    return root


def test_print_mode_continues_the_session_an_id_prefix_names(project: Path) -> None:
    result = run_pitui(project, "-p", "--model", "demo/demo", "--session", "ed88ac26-2", "again")
    assert result.returncode == 0, result.stderr
    assert list(project.iterdir()) == []  # no file named after the id in the project
    [path] = [p for p in (project.parent / "pitui-home").rglob(f"*{IDS[1]}.jsonl")]
    assert "again" in path.read_text()


def test_an_ambiguous_prefix_lists_the_matches(project: Path) -> None:
    result = run_pitui(project, "-p", "--model", "demo/demo", "--session", "ed88ac26", "x")
    assert result.returncode == 1
    assert "ed88ac26 matches 2 sessions; give more of the id" in result.stderr
    assert IDS[0] in result.stderr and IDS[1] in result.stderr
    assert "Traceback" not in result.stderr and list(project.iterdir()) == []


def test_an_unknown_word_is_not_a_new_session_file(project: Path) -> None:
    result = run_pitui(project, "-p", "--model", "demo/demo", "--session", "nosuchid", "x")
    assert result.returncode == 1
    assert "nosuchid: no such session file or session id" in result.stderr
    assert list(project.iterdir()) == []


def test_a_new_path_starts_a_session_there_as_pi(project: Path) -> None:
    result = run_pitui(project, "-p", "--model", "demo/demo", "--session", "new.jsonl", "x")
    assert result.returncode == 0, result.stderr
    assert (project / "new.jsonl").is_file()


def test_another_projects_session_is_found_by_id(project: Path) -> None:
    result = run_pitui(project, "session", "tree", "0b5e")
    assert result.returncode == 0, result.stderr
    assert "another project" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--export", "ed88ac26-1", "out.html"),
        ("session", "context", "ed88ac26-1"),
        ("session", "check", "ed88ac26-1"),
        ("session", "compact", "ed88ac26-1", "--dry-run", "--json"),
        ("session", "navigate", "ed88ac26-1", "--to", "a1", "--dry-run"),
    ],
)
def test_every_command_taking_a_file_takes_an_id(args: tuple[str, ...], project: Path) -> None:
    result = run_pitui(project, *args)
    if args[1] == "compact":  # it read the session: two messages are too few to compact
        assert "Nothing to compact (session too small)" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    if args[0] == "--export":
        assert "first session" in (project / "out.html").read_text()


def test_export_of_an_ambiguous_prefix_is_refused(project: Path) -> None:
    result = run_pitui(project, "--export", "ed88")
    assert result.returncode == 1
    assert "matches 2 sessions" in result.stderr and "Traceback" not in result.stderr
