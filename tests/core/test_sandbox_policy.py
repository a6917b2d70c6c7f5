"""The workspace policy and its sandbox: no sandbox, no free bash; projects cannot widen it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pytest import MonkeyPatch

from pitui import paths
from pitui.core.permissions import PermissionGate, PermissionPolicy
from pitui.core.settings import load_settings


async def test_workspace_without_a_sandbox_asks_and_print_mode_denies(tmp_path: Path) -> None:
    policy = PermissionPolicy(tmp_path, "workspace", sandbox_missing="no sandbox; --approve all")
    assert policy.verdict("bash", {"command": "ls"}) == ("ask", "no sandbox; --approve all")
    assert policy.verdict("write", {"path": "a.txt"})[0] == "allow"
    message = await PermissionGate(policy).check("c1", "bash", {"command": "ls"})
    assert message == "Permission denied for bash: no sandbox; --approve all."
    sandboxed = PermissionPolicy(tmp_path, "workspace")
    assert sandboxed.verdict("bash", {"command": "rm -rf build"})[0] == "allow"


async def test_a_project_can_narrow_the_sandbox_but_not_widen_it(tmp_path: Path) -> None:
    paths.settings_file().parent.mkdir(parents=True)
    paths.settings_file().write_text(json.dumps({"sandbox": {"writablePaths": ["~/.cache"]}}))
    project = paths.project_settings_file(tmp_path)
    project.parent.mkdir()
    widen = {"writablePaths": ["/"], "network": True, "writableSlashTmp": True}
    project.write_text(json.dumps({"sandbox": {**widen, "backend": "bwrap"}}))
    sandbox = (await load_settings(tmp_path)).settings.sandbox
    assert sandbox.writable_paths == ["~/.cache"] and sandbox.backend == "auto"
    project.write_text(json.dumps({"sandbox": {"network": False, "writableSlashTmp": False}}))
    sandbox = (await load_settings(tmp_path)).settings.sandbox
    assert sandbox.network is False and sandbox.writable_slash_tmp is False


def test_unix_blocked_asks_the_machine_once_per_process(monkeypatch: MonkeyPatch) -> None:
    """Each bash call asks whether unix sockets are refused: the machine is asked once
    (it cannot change), the sandbox's own setting is fixed with it."""
    from pitui.core import sandbox_rules
    from pitui.core.sandbox import Sandbox

    asked: list[int] = []
    real = os.uname

    def uname() -> os.uname_result:
        asked.append(1)
        return real()

    monkeypatch.setattr(os, "uname", uname)
    sandbox_rules.this_machine.cache_clear()
    try:
        box = Sandbox(kind="landlock", writable=("/srv",))
        first = box.unix_blocked()
        assert [box.unix_blocked() for _ in range(5)] == [first] * 5
        assert not Sandbox(kind="landlock", writable=("/srv",), unix_sockets=True).unix_blocked()
        assert len(asked) == 1
    finally:
        sandbox_rules.this_machine.cache_clear()
