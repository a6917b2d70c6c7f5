"""A remembered rule covers only literal words: what the matcher reads is what bash runs.

The explicit cases are the forms that ran unasked under a remembered ``touch *`` (issue
21 item 9); the property test generates shell words and checks, with a real bash, that
whenever a rule lets a command through, bash sees exactly the words the matcher saw and
none of them leads outside the project.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core.command_rules import CommandRule, never_remembered, rule_applies, shell_words
from pitui.core.permissions import PermissionPolicy

ESCAPES = [
    "touch ${HOME}/x",
    "touch $HOME/x",
    "touch {/tmp,.}/x",
    "touch $'\\x2ftmp\\x2fx'",
    "touch $PWD/../x",
    "touch ~root/x",
    "touch ~/x",
    'touch "$HOME"/x',
    "touch /tm?",
    "touch /t[m]p",
    "touch \\/tmp/x",
    "touch x*",
    "cp src $HOME/.bashrc",
    "cp src ${PWD%/*}/x",
]


def _bash_words(args: str, cwd: Path, home: Path) -> list[str]:
    """The words bash makes of ``args`` (expansions and all), from a real bash."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", f"printf '%s\\0' {args}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "x1").write_text("")
    return root


@pytest.mark.parametrize("command", ESCAPES)
def test_expansions_never_match_a_rule(command: str, project: Path) -> None:
    policy = PermissionPolicy(project, "ask", allow_command_prefixes=["touch", "cp"])
    assert policy.verdict("bash", {"command": command}) == ("ask", "runs a shell command")
    assert never_remembered(command) is not None  # and "always" is not offered
    tool_wide = PermissionPolicy(project, "ask", allow_tools=["bash"])
    assert tool_wide.verdict("bash", {"command": command})[0] == "ask"


def test_each_form_really_reaches_outside(project: Path, tmp_path: Path) -> None:
    """The forms are not hypothetical: bash expands each to a word the matcher never saw."""
    for command in ESCAPES:
        if "\\/" in command:  # shlex unescapes this one as bash does; it asks all the same
            continue
        args = command.split(" ", 1)[1]
        assert _bash_words(args, project, tmp_path) != shlex.split(args), command


def test_literal_commands_still_match(project: Path) -> None:
    policy = PermissionPolicy(project, "ask", allow_command_prefixes=["touch"])
    for command in ("touch a.txt", "touch 'a b.txt' src/c", 'touch "with space"', "touch -c x1"):
        assert policy.verdict("bash", {"command": command})[0] == "allow", command


PIECES = st.sampled_from(
    ["a", "b", "x1", "src", ".", "..", "/", "-", "=", "_", " ", "'", '"', "$", "HOME", "{", "}",
     ",", "~", "*", "?", "[", "]", "\\", "!", "(", ")", "$'\\x2f'", "%", "#", ":", "@", "+",
     "\r", "\t", "\x0b", "\xa0"]
)  # fmt: skip
ARGS = st.lists(PIECES, min_size=1, max_size=12).map("".join)


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(args=ARGS)
def test_what_a_rule_lets_run_is_what_bash_runs(args: str, project: Path, tmp_path: Path) -> None:
    command = f"touch {args}"
    if not rule_applies(CommandRule("prefix", "touch"), command, project):
        return
    words = shell_words(args)
    if not words:
        return
    assert _bash_words(args, project, tmp_path) == words
    root = os.path.realpath(project)
    for word in words:
        if not word.startswith("-"):
            target = os.path.realpath(os.path.join(project, word))
            assert target == root or target.startswith(root + os.sep), word
