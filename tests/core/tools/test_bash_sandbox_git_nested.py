"""Git dirs the model makes in a SUBFOLDER of the project (issue 21): real git, real sandbox.

``sub/.git`` with a hook or ``core.fsmonitor``, or ``sub`` itself an embedded bare
repository (``HEAD``, ``config``, ``objects/``, ``refs/``: git discovers it too): the
user's later ``git status`` or ``git commit`` in that subfolder would run the model's
code. Each is found after the call and moved out; an inert one is kept and then
read-only; the user's own nested repositories are read-only and never moved.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from pitui import paths
from pitui.core.sandbox import SandboxKind
from tests.core.sandbox_support import NAMESPACES, backends, output_of, sandboxed_bash
from tests.core.sandbox_support import visible_outside as visible_outside

each_backend = pytest.mark.parametrize("kind", backends())
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
_IDENTITY = "git -c user.name=m -c user.email=m@x"
_HOOK = "printf '#!/bin/sh\\ntouch {marker}\\n' > {hooks}/pre-commit; chmod +x {hooks}/pre-commit"


@pytest.fixture
def project(tmp_path: Path, pitui_home: Path) -> Path:
    """A git repository of the user's, with one commit."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    _users_git(folder, "init", "-q")
    _users_git(folder, "add", "-A")
    _users_git(folder, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "first")
    return folder


def _users_git(folder: Path, *args: str) -> str:
    """The user, later, outside the sandbox."""
    return subprocess.run(
        ["git", *args], cwd=folder, capture_output=True, text=True, check=False, timeout=20
    ).stdout


def _users_commands(folder: Path) -> None:
    _users_git(folder, "status")
    _users_git(
        folder, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "x", "--allow-empty"
    )


# An embedded bare repository git treats as having the folder above as its worktree.
_BARE = (
    "git init -q --bare sub && git -C sub config core.bare false && "
    "git -C sub config core.worktree .."
)
_PLANTS = {
    "hook": "git init -q sub && " + _HOOK.format(marker="{marker}", hooks="sub/.git/hooks"),
    "fsmonitor": "git init -q sub && git -C sub config core.fsmonitor 'touch {marker}; false'",
    "deep": "mkdir -p a/b && git init -q a/b/c && "
    "git -C a/b/c config core.fsmonitor 'touch {marker}; false'",
    "bare": f"{_BARE} && git -C sub config core.fsmonitor 'touch {{marker}}; false'",
    "bare-hook": f"{_BARE} && " + _HOOK.format(marker="{marker}", hooks="sub/hooks"),
    "gitdir-file": "mkdir sub && git init -q --bare store && "
    "git -C store config core.fsmonitor 'touch {marker}; false' && "
    "echo 'gitdir: ../store' > sub/.git",
}
_WHERE = {"deep": "a/b/c"}


@needs_git
@each_backend
@pytest.mark.parametrize("plant", list(_PLANTS))
async def test_a_git_planted_in_a_subfolder_is_moved_out_before_the_users_git_runs_it(
    kind: SandboxKind, project: Path, plant: str, visible_outside: Path
) -> None:
    marker = visible_outside / "pwned"
    command = f"{_PLANTS[plant].format(marker=marker)} && echo planted"
    output = await output_of(sandboxed_bash(kind, project), command)
    assert "planted" in output, output
    assert "pitui moved" in output and "out of the project" in output, output
    assert list((paths.project_state_dir(project) / "quarantine").iterdir())
    await asyncio.to_thread(_users_commands, project / _WHERE.get(plant, "sub"))
    assert not marker.exists(), output


@needs_git
@each_backend
async def test_an_inert_nested_repository_is_kept_and_then_read_only(
    kind: SandboxKind, project: Path
) -> None:
    tool = sandboxed_bash(kind, project)
    output = await output_of(
        tool, f"git init -q lib && {_IDENTITY} -C lib commit -qm s --allow-empty"
    )
    assert "[pitui sandbox]" not in output, output
    assert "s" in await asyncio.to_thread(_users_git, project / "lib", "log", "--oneline")
    if NAMESPACES or kind == "bwrap":
        await output_of(tool, "git -C lib config core.fsmonitor 'touch x'")
        assert "fsmonitor" not in (project / "lib" / ".git" / "config").read_text()


@needs_git
@each_backend
async def test_the_users_own_nested_repositories_are_read_only_and_never_moved(
    kind: SandboxKind, project: Path, visible_outside: Path
) -> None:
    """A vendored clone the user made, before pitui or between two calls (``!git clone``),
    with a config the inert list does not know: read-only to the model, never moved."""
    tool = sandboxed_bash(kind, project)
    for name in ("before", "between"):
        if name == "between":
            await output_of(tool, "true")
        _users_git(project, "init", "-q", name)
        _users_git(project / name, "config", "core.sshCommand", "ssh -i ~/.ssh/work")
        marker = visible_outside / f"pwned-{name}"
        plant = _HOOK.format(marker=marker, hooks=f"{name}/.git/hooks")
        output = await output_of(tool, f"{plant}; echo tried")
        assert "tried" in output and "pitui moved" not in output, output
        assert (project / name / ".git" / "config").is_file()
        if NAMESPACES or kind == "bwrap":
            assert not (project / name / ".git" / "hooks" / "pre-commit").exists(), output


@needs_git
@each_backend
async def test_a_call_that_starts_while_another_runs_does_not_take_its_work_in(
    kind: SandboxKind, project: Path, visible_outside: Path
) -> None:
    """Bash calls may overlap: what the first planted before the second started is the
    model's, not a change of the user's between calls."""
    marker = visible_outside / "pwned"
    tool = sandboxed_bash(kind, project)
    plant = _PLANTS["hook"].format(marker=marker)
    first = asyncio.ensure_future(output_of(tool, f"{plant} && sleep 1.5 && echo first"))
    for _ in range(100):  # the hook is in place, the first call still running
        if (project / "sub" / ".git" / "hooks" / "pre-commit").exists():
            break
        await asyncio.sleep(0.05)
    second = await output_of(tool, "echo second")
    outputs = second + await first
    assert "pitui moved" in outputs, outputs
    await asyncio.to_thread(_users_commands, project / "sub")
    assert not marker.exists(), outputs
