"""Launch helpers: CLI flags → session options, theme peek, git branch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pitui import paths
from pitui.cli import build_parser
from pitui.ui.controllers.launcher import tui_options
from pitui.ui.launch import peek_theme, read_git_branch


def test_tui_options_leave_approval_to_the_settings(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["-c", "--model", "demo/demo:high", "--tools", "read, edit", "--session-dir", "sd"]
    )
    options = tui_options(args, tmp_path)
    assert options.approve is None  # settings decide (default "ask"), unlike print mode
    assert options.continue_recent and options.model == "demo/demo:high"
    assert options.tools == ["read", "edit"] and options.session_dir == Path("sd")
    explicit = tui_options(
        build_parser().parse_args(["--approve", "all", "--no-session"]), tmp_path
    )
    assert explicit.approve == "all" and explicit.no_session


def test_peek_theme_project_over_global(tmp_path: Path) -> None:
    assert peek_theme(tmp_path) is None
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text(json.dumps({"theme": "light"}))
    assert peek_theme(tmp_path) == "light"
    project = paths.project_settings_file(tmp_path)
    project.parent.mkdir(parents=True, exist_ok=True)
    project.write_text(json.dumps({"theme": "mine"}))
    assert peek_theme(tmp_path) == "mine"
    project.write_text("{not json")
    assert peek_theme(tmp_path) == "light"


def testread_git_branch(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "repo" / "sub").mkdir()
    assert read_git_branch(tmp_path / "repo" / "sub") == "feature/x"
    (tmp_path / "repo" / ".git" / "HEAD").write_text("0123456789abcdef\n")
    assert read_git_branch(tmp_path / "repo") == "detached"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../repo/.git\n")
    assert read_git_branch(worktree) == "detached"


def test_first_frame_path_imports_no_models() -> None:
    """Building the app loads no pydantic models, façade or provider (they come later)."""
    code = (
        "import sys\n"
        "from pitui.cli import build_parser\n"
        "from pitui.ui.launch import create_app\n"
        "create_app(build_parser().parse_args([]))\n"
        "heavy = ('pydantic', 'pitui.ai.types', 'pitui.core.agent_session', 'httpx')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
