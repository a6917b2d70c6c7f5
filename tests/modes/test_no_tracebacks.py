"""Faults that used to end in a traceback: each is one clear line, and nothing is changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fs_faults import read_only, unreadable
from tests.modes.loopback import continued_session, run_pitui

FIXTURE = Path(__file__).parents[1] / "fixtures" / "pi-oracle" / "before-compaction.v3.jsonl"


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.mark.parametrize("command", ["check", "context", "tree"])
def test_an_unreadable_session_file_is_named_with_the_cause(
    command: str, project: Path, tmp_path: Path
) -> None:
    path = unreadable(tmp_path)
    result = run_pitui(project, "session", command, str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"cannot read the session file {path}:" in result.stderr


@pytest.mark.parametrize("how", ["--session", "-c"])
def test_continuing_a_read_only_session_file_is_refused_and_leaves_it(
    how: str, project: Path, pitui_home: Path, tmp_path: Path
) -> None:
    path, args = continued_session(how, project, tmp_path, FIXTURE)
    before = path.read_bytes()
    with read_only(path):
        result = run_pitui(project, "-p", "--model", "demo/demo", *args, "hello")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"cannot write the session file {path}" in result.stderr
    assert "left untouched" in result.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", ["settings.json", "models.json", "auth.json"])
@pytest.mark.parametrize("fault", ["utf8", "directory"])
def test_a_config_file_that_cannot_be_read_is_reported_and_the_run_goes_on(
    name: str, fault: str, project: Path, pitui_home: Path
) -> None:
    pitui_home.mkdir(parents=True)
    target = pitui_home / name
    if fault == "utf8":
        target.write_bytes(b'{"theme": "d\xe9faut"}\n')
        expected = f"{target}: not valid UTF-8 (byte 0xe9 on line 1); save it as UTF-8"
    else:
        target.mkdir()
        expected = f"{target}: is a directory, not a file"
    result = run_pitui(project, "-p", "--no-session", "hello")
    assert "Traceback" not in result.stderr
    assert expected in result.stderr
    assert result.returncode == 0
    assert "offline demo model" in result.stdout
