"""Damaged session files never crash the CLI (issue 22 item 4).

A few hundred generated mutants of a real session (:mod:`tests.core.session.mutants`) go
through every command that reads a session file. Each run ends with an exit code and, on
failure, one clear line: never an exception, never a traceback. The commands that only
read leave the file as it was; ``session check`` reports every file another command
refuses; a file whose header is refused is not written even by ``-p --session``.
"""

from __future__ import annotations

import contextlib
import gc
import io
from pathlib import Path

import pytest

from pitui import cli
from tests.core.session.mutants import mutants
from tests.modes.loopback import run_pitui

MUTANTS = list(mutants(250))
READERS = ("tree", "context", "context-json", "ls")
"""Fast read-only commands: run on every mutant."""
EVERY = 6
"""Export and print mode (slower: a whole session run) on every sixth mutant and on the
named faults (the first ones)."""
NAMED = 21  # the header versions, the deep lines and _NAMED in the mutants module


def _argv(command: str, file: Path, work: Path) -> list[str]:
    return {
        "tree": ["session", "tree", str(file)],
        "context": ["session", "context", str(file)],
        "context-json": ["session", "context", "--json", str(file)],
        "check": ["session", "check", str(file)],
        "ls": ["session", "ls", "--session-dir", str(file.parent), "--no-cache"],
        "export": ["--export", str(file), str(work / "out.html")],
        "print": ["-p", "--model", "demo/demo", "--session", str(file), "hi"],
    }[command]


def _run(argv: list[str]) -> tuple[int, str]:
    """``pitui ARGV`` in this process: (exit code, stdout and stderr)."""
    out, err = io.TextIOWrapper(io.BytesIO()), io.TextIOWrapper(io.BytesIO())
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        gc.enable()  # print mode pauses collection until its session is ready
    out.flush()
    err.flush()
    texts = [stream.buffer.getvalue().decode() for stream in (out, err)]
    return code, "".join(texts)


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # print mode reads piped input


def test_no_mutant_crashes_a_command(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    file = sessions / "mutant.jsonl"
    failures: list[str] = []
    for number, (what, data) in enumerate(MUTANTS):
        commands = list(READERS)
        if number < NAMED or number % EVERY == 0:
            commands += ["export", "print"]
        refused: list[str] = []
        for command in commands:
            file.write_bytes(data)
            code, stderr = _run(_argv(command, file, tmp_path))
            if "Traceback" in stderr or code not in (0, 1):
                failures.append(f"{what}: {command} exit {code}: {stderr[-300:]}")
            if command != "print" and file.read_bytes() != data:
                failures.append(f"{what}: {command} changed the file")
            if code == 1:
                refused.append(command)
                if "header" in stderr and file.read_bytes() != data:
                    failures.append(f"{what}: {command} wrote to a file it refused")
        file.write_bytes(data)
        code, stderr = _run(_argv("check", file, tmp_path))
        if "Traceback" in stderr or code not in (0, 1):
            failures.append(f"{what}: check exit {code}: {stderr[-300:]}")
        if refused and code == 0:
            failures.append(f"{what}: check says ok; {', '.join(refused)} refused the file")
    assert failures == []


@pytest.mark.parametrize(
    ("what", "expected"),
    [
        ("header version 0", "header says version 0"),
        ("header version None", "header has no version"),
        ("line 0: cwd = 0", "header cwd must be a string, not 0"),
        ("line 0: timestamp = -1", "header timestamp must be a string, not -1"),
    ],
)
def test_a_refused_header_is_named_by_every_command(
    what: str, expected: str, tmp_path: Path
) -> None:
    data = dict(MUTANTS)[what]
    file = tmp_path / "s.jsonl"
    file.write_bytes(data)
    for command in ("tree", "context", "check", "export", "print"):
        code, stderr = _run(_argv(command, file, tmp_path))
        assert code == 1, command
        assert expected in stderr, (command, stderr)
    assert file.read_bytes() == data  # not migrated, not rewritten with new ids


@pytest.mark.parametrize(
    ("what", "expected"),
    [
        ('line 1: message.role = ["user"]', "line 2: entry a6685f3b (message) is ignored: "
         "message.role: must be a valid string"),
        ("line 1: timestamp = -1", "is ignored: timestamp: must be a valid string"),
        ("line 2: message.stopReason = []", "is ignored: message.stopReason: must be"),
        ("a line of 100k nested [", "line 6: not JSON (nested too deeply"),
    ],
)  # fmt: skip
def test_a_bad_entry_is_reported_by_check_and_skipped_by_the_rest(
    what: str, expected: str, tmp_path: Path
) -> None:
    """Real processes: check names the entry and its field; the others go on without it."""
    data = dict(MUTANTS)[what]
    file = tmp_path / "s.jsonl"
    file.write_bytes(data)
    checked = run_pitui(tmp_path, "session", "check", str(file))
    assert checked.returncode == 1 and "Traceback" not in checked.stderr
    assert expected in checked.stdout + checked.stderr
    tree = run_pitui(tmp_path, "session", "tree", str(file))
    printed = run_pitui(tmp_path, "-p", "--model", "demo/demo", "--session", str(file), "hi")
    for result in (tree, printed):
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
