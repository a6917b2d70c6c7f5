"""The workspace policy and its sandbox: no sandbox, no free bash; projects cannot widen it."""

from __future__ import annotations

import json
from pathlib import Path

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
