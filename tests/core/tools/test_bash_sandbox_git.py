"""A ``.git`` the model makes where there was none (issue 21): real git, real sandbox.

A planted hook, ``core.fsmonitor``, ``core.hooksPath`` or a ``gitdir:`` file would run on
the user's next ``git status``; an inert repository (``git init`` and a commit) is kept.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from pitui import paths
from pitui.core.sandbox import SandboxKind
from pitui.core.tools.bash import BashTool
from tests.core.sandbox_support import NAMESPACES, backends, output_of, sandboxed_bash
from tests.core.sandbox_support import visible_outside as visible_outside

each_backend = pytest.mark.parametrize("kind", backends())
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
_IDENTITY = "git -c user.name=m -c user.email=m@x"


@pytest.fixture
def project(tmp_path: Path, pitui_home: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    return folder


def _tool(kind: SandboxKind, project: Path) -> BashTool:
    return sandboxed_bash(kind, project)


def _users_git(project: Path, *args: str) -> str:
    """The user, later, outside the sandbox (a missing repository is fine)."""
    return subprocess.run(
        ["git", *args], cwd=project, capture_output=True, text=True, check=False, timeout=20
    ).stdout


@needs_git
@each_backend
@pytest.mark.parametrize(
    "plant",
    [
        "printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/pre-commit; "
        "chmod +x .git/hooks/pre-commit; git config core.hooksPath .git/hooks",
        "git config core.fsmonitor 'touch {marker}; false'",
        "mkdir h; printf '#!/bin/sh\\ntouch {marker}\\n' > h/post-index-change; chmod +x h/*; "
        "git config core.hooksPath h",
        "mv .git elsewhere.git; git --git-dir=elsewhere.git config core.fsmonitor "
        "'touch {marker}; false'; echo 'gitdir: elsewhere.git' > .git",
    ],
    ids=["hook", "fsmonitor", "hooks-path", "gitdir-file"],
)
async def test_a_planted_git_is_moved_out_before_the_users_git_runs_it(
    kind: SandboxKind, project: Path, plant: str, visible_outside: Path
) -> None:
    marker = visible_outside / "pwned"
    command = f"git init -q && {plant.format(marker=marker)}; echo planted"
    output = await output_of(_tool(kind, project), command)
    assert "planted" in output
    assert "pitui moved it out of the project" in output, output
    assert not (project / ".git").is_symlink() and not (project / ".git").exists()
    quarantined = list((paths.project_state_dir(project) / "quarantine").iterdir())
    # The gitdir: file, and elsewhere.git's HEAD (a bare repository of its own to git).
    assert len(quarantined) == (2 if "gitdir:" in plant else 1)
    await asyncio.to_thread(_users_git, project, "status")
    await asyncio.to_thread(_users_git, project, "commit", "-qm", "x", "--allow-empty")
    assert not marker.exists()


@needs_git
@each_backend
async def test_an_inert_new_repository_is_kept_and_then_read_only(
    kind: SandboxKind, project: Path
) -> None:
    tool = _tool(kind, project)
    output = await output_of(tool, f"git init -q && git add -A && {_IDENTITY} commit -qm first")
    assert "[pitui sandbox]" not in output, output
    assert "first" in await asyncio.to_thread(_users_git, project, "log", "--oneline")
    if NAMESPACES or kind == "bwrap":
        await output_of(tool, "git config core.fsmonitor 'touch x'")
        assert "fsmonitor" not in (project / ".git" / "config").read_text()


@needs_git
@each_backend
async def test_a_submodule_in_a_new_index_is_not_kept(kind: SandboxKind, project: Path) -> None:
    command = (
        "mkdir sub && git -C sub init -q && git -C sub config core.fsmonitor 'touch x; false' "
        f"&& {_IDENTITY} -C sub commit -q --allow-empty -m s && git init -q && git add sub"
    )
    output = await output_of(_tool(kind, project), command)
    assert "its index holds a submodule" in output, output
    assert not (project / ".git").exists()
