"""The command line answers --version and --help quickly, without loading the TUI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pitui

# Packages that must stay unloaded for --version/--help (cli.py's import-light contract),
# besides pitui.ui itself.
HEAVY = ("textual", "pydantic")

PROBE = """
import json, sys
from pitui.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY or m.startswith("pitui.ui"))
print("\\nPROBE " + json.dumps({"code": code, "loaded": heavy}))
"""


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=60, check=False
    )


def test_version(tmp_path: Path) -> None:
    proc = run(["-m", "pitui", "--version"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"pitui {pitui.__version__}"


def test_help(tmp_path: Path) -> None:
    proc = run(["-m", "pitui", "--help"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: pitui")
    for flag in ("--print", "--continue", "--resume", "--model", "--thinking", "--no-session"):
        assert flag in proc.stdout


def test_unknown_option_is_a_usage_error_on_stderr(tmp_path: Path) -> None:
    proc = run(["-m", "pitui", "--no-such-flag"], tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "--no-such-flag" in proc.stderr


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_do_not_load_the_tui(tmp_path: Path, flag: str) -> None:
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    proc = run(["-c", code, flag], tmp_path)
    assert proc.returncode == 0, proc.stderr
    probe = json.loads(proc.stdout.rsplit("PROBE ", 1)[1])
    assert probe == {"code": 0, "loaded": []}


def test_version_import_profile_has_no_textual(tmp_path: Path) -> None:
    """The real entry point (``python -m pitui``) as seen by ``-X importtime``."""
    proc = run(["-X", "importtime", "-m", "pitui", "--version"], tmp_path)
    assert proc.returncode == 0
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()]
    assert "pitui.cli" in imported
    assert not [name for name in imported if name.split(".")[0] == "textual"]
    assert "pitui.ui" not in imported


def test_a_bare_tui_command_line_is_read_without_argparse() -> None:
    """``pitui`` and other simple TUI command lines take the flags argparse would give them
    from pitui/cli_options.py's table (~11 M instructions of a first frame); anything
    else (here ``--flag=value``) is still argparse's."""
    probe = (
        "import sys\n"
        "from pitui.cli import _mode_module, _parse\n"
        "for argv in ([], ['--model', 'a/b', '--theme', 'light'], ['-c']):\n"
        "    args = _parse(argv)\n"
        "    assert _mode_module(args) == 'pitui.ui.launch', argv\n"
        "assert 'argparse' not in sys.modules and 'gettext' not in sys.modules\n"
        "assert vars(_parse(['--model=a/b']))['model'] == 'a/b'\n"
        "assert 'argparse' in sys.modules\n"
    )
    tty = "import os, pty; _, fd = pty.openpty(); os.dup2(fd, 0)\n"  # a terminal: the TUI
    subprocess.run([sys.executable, "-c", tty + probe], check=True, timeout=60)
