"""The permission gate: policy verdicts, asking, remembering, never hanging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.core.permissions import (
    ApprovalRequest,
    ApprovalResponse,
    PermissionGate,
    PermissionPolicy,
    RuleChange,
)


def _policy(tmp_path: Path, mode: Any = "ask", **kw: Any) -> PermissionPolicy:
    return PermissionPolicy(cwd=tmp_path, mode=mode, **kw)


@pytest.mark.parametrize("tool", ["read", "grep", "find", "ls"])
def test_read_only_tools_are_allowed(tmp_path: Path, tool: str) -> None:
    assert _policy(tmp_path).verdict(tool, {"path": "/etc/passwd"})[0] == "allow"


@pytest.mark.parametrize("tool", ["write", "edit", "bash"])
def test_mutating_tools_ask_by_default(tmp_path: Path, tool: str) -> None:
    args = {"path": "a.txt", "command": "ls"}
    assert _policy(tmp_path).verdict(tool, args)[0] == "ask"


def test_workspace_mode_allows_inside_and_denies_outside(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "workspace")
    assert policy.verdict("write", {"path": "sub/a.txt"})[0] == "allow"
    assert policy.verdict("bash", {"command": "rm -rf build"})[0] == "allow"
    assert policy.verdict("edit", {"path": "../other/a.txt"})[0] == "deny"
    assert policy.verdict("write", {"path": "/tmp/x"})[0] == "deny"


def test_all_and_none_modes(tmp_path: Path) -> None:
    assert _policy(tmp_path, "all").verdict("write", {"path": "/tmp/x"})[0] == "allow"
    assert _policy(tmp_path, "none").verdict("edit", {"path": "a"})[0] == "deny"
    assert _policy(tmp_path, "none").verdict("read", {"path": "a"})[0] == "allow"


def test_edits_mode_allows_edits_but_asks_for_bash(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "edits")
    assert policy.verdict("edit", {"path": "a"})[0] == "allow"
    assert policy.verdict("bash", {"command": "ls"})[0] == "ask"


def test_writes_outside_always_ask_even_when_tool_is_remembered(tmp_path: Path) -> None:
    policy = _policy(tmp_path, allow_tools=["write"])
    assert policy.verdict("write", {"path": "in.txt"})[0] == "allow"
    assert policy.verdict("write", {"path": "~/out.txt"})[0] == "ask"


def test_command_prefix_never_covers_compound_commands(tmp_path: Path) -> None:
    policy = _policy(tmp_path, allow_command_prefixes=["npm test"])
    assert policy.verdict("bash", {"command": "npm test -- --watch"})[0] == "allow"
    assert policy.verdict("bash", {"command": "npm testing"})[0] == "ask"
    assert policy.verdict("bash", {"command": "npm test && rm -rf /"})[0] == "ask"
    assert policy.verdict("bash", {"command": "npm test $(curl x)"})[0] == "ask"


async def test_no_asker_means_denial_not_a_hang(tmp_path: Path) -> None:
    gate = PermissionGate(_policy(tmp_path))
    message = await gate.check("c1", "bash", {"command": "ls"})
    assert message is not None and "Permission denied for bash" in message
    assert gate.decisions["c1"].allowed is False


async def test_user_denial_with_reason_reaches_the_model_text(tmp_path: Path) -> None:
    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        assert request.always_rule == "git push origin main"
        return ApprovalResponse("deny", "not on main")

    gate = PermissionGate(_policy(tmp_path), asker)
    message = await gate.check("c1", "bash", {"command": "git push origin main"})
    assert message == "The user denied this bash call. Reason: not on main"


async def test_always_allow_is_remembered_and_persisted(tmp_path: Path) -> None:
    persisted: list[RuleChange] = []
    asked: list[str] = []

    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        asked.append(request.tool_call_id)
        return ApprovalResponse("always")

    async def remember(change: RuleChange) -> None:
        persisted.append(change)

    gate = PermissionGate(_policy(tmp_path), asker, remember)
    assert await gate.check("c1", "edit", {"path": "a.py"}) is None
    assert await gate.check("c2", "edit", {"path": "b.py"}) is None
    assert asked == ["c1"]
    assert persisted == [RuleChange("project", "allowTools", ["edit"])]
