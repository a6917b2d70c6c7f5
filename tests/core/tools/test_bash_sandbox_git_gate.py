"""Git commands that write the repository under the workspace sandbox (issue 21 item 5):
they ask, and once allowed run with ``.git`` writable but its hooks and config not."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from pitui.core.command_rules import git_writes
from pitui.core.permissions import (
    GIT_WRITE_REASON,
    ApprovalRequest,
    ApprovalResponse,
    PermissionGate,
    PermissionPolicy,
)
from pitui.core.sandbox import SandboxKind, build_sandbox
from pitui.core.settings import SandboxSettings
from pitui.core.tools.bash import BashError, BashTool
from tests.core.sandbox_support import NAMESPACES, backends

from .helpers import run, text

each_backend = pytest.mark.parametrize("kind", backends())


def test_only_a_plain_git_command_that_writes_is_singled_out() -> None:
    assert git_writes("git commit -m 'a message'")
    assert git_writes("git checkout -b topic")
    assert not git_writes("git status")
    assert not git_writes("git log --oneline")
    for hidden in (
        "git commit -m x && touch .git/hooks/pre-commit",
        "git -c core.fsmonitor=x commit -m y",
        "git -C /elsewhere commit -m y",
        "git commit -m $HOME",
        "git rebase --exec 'touch x' main",
        "git pull --upload-pack=evil",
        "git merge -s evil topic",
        "git config core.hooksPath h",
    ):
        assert not git_writes(hidden), hidden


async def test_the_gate_asks_each_time_and_print_mode_refuses(tmp_path: Path) -> None:
    policy = PermissionPolicy(tmp_path, "workspace")
    command = {"command": "git commit -m x"}
    assert policy.verdict("bash", command) == ("ask", GIT_WRITE_REASON)
    assert policy.verdict("bash", {"command": "git status"}) == ("allow", "")
    rule, why = policy.always_offer("bash", command, False)
    assert rule is None and "asks each time" in why
    printed = await PermissionGate(policy).check("c1", "bash", command)  # nobody to ask
    assert printed is not None and "writes the repository" in printed
    seen: list[ApprovalRequest] = []

    async def allow(request: ApprovalRequest) -> ApprovalResponse:
        seen.append(request)
        return ApprovalResponse("allow_once")

    gate = PermissionGate(policy, allow)
    assert await gate.check("c2", "bash", command) is None
    assert gate.git_granted("c2") and seen[0].always_rule is None
    assert await gate.check("c3", "bash", {"command": "ls"}) is None
    assert not gate.git_granted("c3")


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=u", "-c", "user.email=u@x", *args],
        cwd=project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    _git(project, "config", "user.name", "u")
    _git(project, "config", "user.email", "u@x")
    (project / "a.txt").write_text("a\n")
    _git(project, "add", "a.txt")
    # The user's own hook: it runs inside the sandbox and tries what a planted one would.
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch .git/hooks/planted\ngit config core.fsmonitor x\nexit 0\n")
    hook.chmod(0o755)
    return project


@each_backend
@pytest.mark.skipif(not NAMESPACES, reason="no mount namespace here: .git is writable anyway")
async def test_an_allowed_git_commit_runs_with_git_writable_but_not_its_hooks(
    kind: SandboxKind, repo: Path
) -> None:
    sandbox = build_sandbox(kind, repo, SandboxSettings(), namespaces=NAMESPACES)
    refused = BashTool(repo, sandbox=sandbox, git_grant=lambda _id: False)
    with pytest.raises(BashError) as info:
        await run(refused, command="git commit -qm first")
    assert "Read-only file system" in str(info.value) or "Permission" in str(info.value)
    allowed = BashTool(repo, sandbox=sandbox, git_grant=lambda _id: True)
    output = text(await run(allowed, command="git commit -qm first"))
    assert "first" in await asyncio.to_thread(_git, repo, "log", "--oneline"), output
    assert not (repo / ".git" / "hooks" / "planted").exists()
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()
