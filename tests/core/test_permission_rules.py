""" "Always" is narrow and visible: exact commands, no destructive ones, never outside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.core.approval_store import read_approvals
from pitui.core.command_rules import (
    CommandRule,
    names_outside,
    never_remembered,
    parse_rule,
    proposed_rule,
    validate_rule,
)
from pitui.core.permissions import (
    ApprovalRequest,
    ApprovalResponse,
    PermissionGate,
    PermissionPolicy,
    RuleChange,
)
from pitui.core.session_setup import SessionOptions, create_agent_session


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "rm build",
        "/bin/rm -r x",
        "mv a b",
        "dd if=/dev/zero of=x",
        "chmod -R 777 .",
        "chmod -vR 777 .",
        "chown me x",
        "sudo make install",
        "git push --force",
        "git push -f origin main",
        "git push origin +main",
        "git -C sub push --force-with-lease",
        "git reset --hard HEAD~1",
        "git clean -fdx",
        "env FOO=1 rm x",
        "nice -n 5 rm x",
        "timeout 10 rm x",
        "FOO=1 rm x",
        "sh -c 'echo hi'",
        "xargs rm",
        "find . -delete",
        "find . -exec rm {} +",
        "npm test && rm -rf /",
        "ls; rm x",
        "echo $(rm x)",
        "cat a > b",
        "echo 'unbalanced",
    ],
)
def test_destructive_and_compound_commands_are_never_offered(command: str) -> None:
    assert never_remembered(command) is not None
    assert proposed_rule(command) is None


@pytest.mark.parametrize(
    "command", ["npm test", "ls -a", "git push origin main", "chmod +x run.sh", "git status"]
)
def test_ordinary_commands_are_offered_exactly(command: str) -> None:
    rule = proposed_rule(command)
    assert rule == CommandRule("exact", command)


def test_exact_rules_cover_only_that_command() -> None:
    rule = CommandRule("exact", "npm test")
    assert rule.matches("npm test") and rule.matches("  npm   'test' ")
    assert not rule.matches("npm test -- --watch")
    assert not rule.matches("npm testing")


def test_a_prefix_is_whole_words_and_is_what_the_user_typed() -> None:
    assert parse_rule("npm test *") == CommandRule("prefix", "npm test")
    assert parse_rule("npm test") == CommandRule("exact", "npm test")
    assert parse_rule("  ") is None and parse_rule("*") is None
    rule = CommandRule("prefix", "npm test")
    assert rule.label == "npm test *"
    assert rule.matches("npm test -- --watch") and rule.matches("npm test")
    assert not rule.matches("npm testing")


def test_an_edited_rule_must_cover_the_command_and_not_be_destructive() -> None:
    assert validate_rule("npm test *", "npm test -- --watch") == CommandRule("prefix", "npm test")
    assert validate_rule("npm run *", "npm test") == "the rule does not cover this command"
    assert isinstance(validate_rule("rm *", "rm -rf build"), str)
    assert validate_rule("", "ls") == "the rule is empty"


def test_paths_outside_the_project_are_seen(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "link").symlink_to(tmp_path / "out")
    assert not names_outside("cat src/a.txt -n", project)
    assert names_outside("cat /etc/passwd", project)
    assert names_outside("cat ~/.ssh/id_rsa", project)
    assert names_outside("cat ../secret", project)
    assert names_outside("cat link/x", project)
    assert names_outside("tool --out=/etc/x", project)


def _policy(tmp_path: Path, **kw: Any) -> PermissionPolicy:
    return PermissionPolicy(cwd=tmp_path, mode="ask", **kw)


def test_remembered_rules_never_cover_destructive_or_outside(tmp_path: Path) -> None:
    # A prefix saved by an older pitui ("rm -rf") no longer lets anything run.
    policy = _policy(tmp_path, allow_command_prefixes=["rm -rf", "cat"], allow_tools=["bash"])
    assert policy.verdict("bash", {"command": "rm -rf /outside/path"})[0] == "ask"
    assert policy.verdict("bash", {"command": "rm -rf build"})[0] == "ask"
    policy = _policy(tmp_path, allow_command_prefixes=["cat"])
    assert policy.verdict("bash", {"command": "cat notes.txt"})[0] == "allow"
    assert policy.verdict("bash", {"command": "cat /etc/shadow"})[0] == "ask"
    assert policy.verdict("bash", {"command": "cat ../other/x"})[0] == "ask"


def test_exact_rules_allow_only_the_command(tmp_path: Path) -> None:
    policy = _policy(tmp_path, allow_commands=["npm test"])
    assert policy.verdict("bash", {"command": "npm test"})[0] == "allow"
    assert policy.verdict("bash", {"command": "npm test -- --coverage"})[0] == "ask"


async def _ask_always(tmp_path: Path, command: str, edited: str | None = None) -> Any:
    seen: list[ApprovalRequest] = []
    saved: list[RuleChange] = []

    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        seen.append(request)
        return ApprovalResponse("always", rule=edited)

    async def remember(change: RuleChange) -> None:
        saved.append(change)

    gate = PermissionGate(_policy(tmp_path), asker, remember)
    message = await gate.check("c1", "bash", {"command": command})
    return gate, seen[0], saved, message


async def test_always_for_rm_rf_build_is_not_offered(tmp_path: Path) -> None:
    gate, request, saved, message = await _ask_always(tmp_path, "rm -rf build")
    assert message is None  # the user's answer still allows it once
    assert request.always_rule is None
    assert "rm" in request.always_refused
    assert saved == [] and gate.remembered_rules() == []


async def test_always_saves_the_exact_command(tmp_path: Path) -> None:
    gate, request, saved, _ = await _ask_always(tmp_path, "ls -a")
    assert request.always_rule == "ls -a"
    assert saved == [RuleChange("project", "allowCommands", ["ls -a"])]
    assert gate.policy.verdict("bash", {"command": "ls -a"})[0] == "allow"
    assert gate.policy.verdict("bash", {"command": "ls -a /"})[0] == "ask"


async def test_always_saves_a_prefix_only_when_the_user_edits_one(tmp_path: Path) -> None:
    _, _, saved, _ = await _ask_always(tmp_path, "npm test -- --watch", "npm test *")
    assert saved == [RuleChange("project", "allowCommandPrefixes", ["npm test"])]
    # An edit that does not cover the command saves nothing (it ran once).
    _, _, saved, message = await _ask_always(tmp_path, "npm test", "make *")
    assert saved == [] and message is None


async def test_writes_outside_offer_no_always(tmp_path: Path) -> None:
    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        assert request.always_rule is None and request.outside_workspace
        return ApprovalResponse("always")

    gate = PermissionGate(_policy(tmp_path), asker)
    assert await gate.check("c1", "write", {"path": "/elsewhere/x"}) is None
    assert gate.remembered_rules() == []


async def test_rules_are_listed_and_removed_in_the_pitui_home(tmp_path: Path) -> None:
    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        return ApprovalResponse("always")

    session = await create_agent_session(SessionOptions(cwd=tmp_path, asker=asker))
    gate = session.gate
    assert await gate.check("c1", "edit", {"path": "a.txt"}) is None
    assert await gate.check("c2", "bash", {"command": "npm test"}) is None
    rules = gate.remembered_rules()
    assert [r.label for r in rules] == ["edit (inside the project)", "bash: npm test"]
    saved, _ = read_approvals(tmp_path)
    assert saved.commands == ["npm test"] and saved.tools == ["edit"]
    assert not paths.project_dir(tmp_path).exists()  # nothing is written in the project
    await gate.forget(rules[1])
    saved, _ = read_approvals(tmp_path)
    assert saved.commands == [] and saved.tools == ["edit"]
    assert [r.label for r in gate.remembered_rules()] == ["edit (inside the project)"]
    assert gate.policy.verdict("bash", {"command": "npm test"})[0] == "ask"
    await session.close()
