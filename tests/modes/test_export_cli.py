"""``pitui --export SESSION [OUT]`` and ``pitui session import FILE``: no TUI, files out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui import paths
from pitui.cli import main
from pitui.core.session.listing import default_session_dir

VIEWS = Path(__file__).parents[1] / "fixtures" / "context" / "views.jsonl"


def test_export_writes_pis_default_name_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--export", str(VIEWS)]) == 0
    out = tmp_path / "pitui-session-views.html"
    assert capsys.readouterr().out == f"Session exported to: {out}\n"
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "Port work" in page
    assert "<script" not in page


def test_export_to_markdown_with_the_settings_theme(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text(json.dumps({"theme": "light"}))
    assert main(["--export", str(VIEWS), "notes/out.html"]) == 0
    assert "--page-bg:#f8f8f8" in (tmp_path / "notes" / "out.html").read_text()
    assert main(["--export", str(VIEWS), "out.md"]) == 0
    assert (tmp_path / "out.md").read_text().startswith("# Port work")


def test_export_errors_go_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--export", str(tmp_path / "missing.jsonl")]) == 1
    assert "no such session file" in capsys.readouterr().err
    assert main(["--export", str(VIEWS), "out.pdf"]) == 1
    assert "unknown export format" in capsys.readouterr().err
    assert main(["--export", str(VIEWS), "a.html", "b.html"]) == 2


def test_session_import_goes_to_the_sessions_folder_of_its_cwd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["session", "import", str(VIEWS)]) == 0
    stored = default_session_dir("/srv/proj") / "views.jsonl"
    assert stored.read_bytes() == VIEWS.read_bytes()
    out = capsys.readouterr().out
    assert f"Session imported to {stored}" in out and "0b9d7c1e-2f4a-4c3b" in out
    assert main(["session", "import", str(VIEWS), "--session-dir", str(tmp_path / "d")]) == 0
    assert (tmp_path / "d" / "views.jsonl").is_file()


def test_session_import_refuses_a_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"session","version":3,"id":"a","timestamp":"t","cwd":"/"}\nnope\n')
    assert main(["session", "import", str(bad), "--session-dir", str(tmp_path / "d")]) == 1
    assert "does not parse: line 2" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
