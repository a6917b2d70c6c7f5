"""``pitui trust``: remember, refuse and show a project's trust decision."""

from __future__ import annotations

from pathlib import Path

from tests.modes.loopback import run_pitui


def test_trust_then_revoke_then_status(tmp_path: Path, pitui_home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "review.md").write_text("Review $1")
    shown = run_pitui(project, "trust", "--status")
    assert shown.returncode == 0 and "not decided; 1 project" in shown.stdout
    done = run_pitui(project, "trust")
    assert done.returncode == 0 and "will be loaded" in done.stdout
    assert "trusted" in run_pitui(project, "trust", "--status").stdout
    assert (pitui_home / "trust.json").is_file()
    run_pitui(project, "trust", "--revoke")
    assert "not trusted" in run_pitui(project, "trust", "--status").stdout
    bad = run_pitui(project, "trust", str(tmp_path / "nope"))
    assert bad.returncode == 2 and "not a folder" in bad.stderr
