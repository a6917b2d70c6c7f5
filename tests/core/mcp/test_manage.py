"""/mcp's rows and changes: attention first, changes saved to the defining file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pitui.core.mcp.config import load_config_now
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.manage import allow_project_server, server_rows, set_enabled, set_exposure
from pitui.core.mcp.runtime import McpRuntime
from pitui.core.mcp.trust import is_allowed, trust_subject
from pitui.core.trust import TrustStore
from tests.core.mcp.helpers import demo_entry, write_mcp


async def test_rows_and_changes(tmp_path: Path, pitui_home: Path) -> None:
    user = write_mcp(pitui_home / "mcp.json", {
        "demo": demo_entry(),
        "broken": {"command": sys.executable, "args": ["-c", "raise SystemExit(2)"]},
        "off": {"command": "x", "enabled": False},
    })  # fmt: skip
    user.write_text(user.read_text().replace('"mcpServers"', '"keep": 1, "mcpServers"'))
    write_mcp(tmp_path / ".pitui" / "mcp.json", {"proj": demo_entry()})
    config = load_config_now(tmp_path)
    store = TrustStore.read()
    runtime = McpRuntime(
        tmp_path, config, allowed=lambda e: is_allowed(store, tmp_path, e),
        log=McpLog(tmp_path / "mcp.log"),
    )  # fmt: skip
    runtime.start()
    try:
        await runtime.wait_all()
        rows = server_rows(runtime)
        assert [(r.name, r.state) for r in rows] == [
            ("proj", "untrusted"),
            ("broken", "failed"),
            ("demo", "connected"),
            ("off", "disabled"),
        ]
        demo = rows[2]
        assert demo.tool_count == 11 and demo.exposure == "auto" and "user:" in demo.source
        assert ("echo", "direct", True) in demo.tools

        await set_exposure(runtime, "demo", "deferred")
        data = json.loads(user.read_text())
        assert data["keep"] == 1 and data["mcpServers"]["demo"]["exposure"] == "deferred"
        assert runtime.tool("mcp__demo__echo").spec.exposure == "deferred"  # type: ignore[union-attr]

        await set_enabled(runtime, "demo", False)
        assert "demo" not in runtime.connections
        assert json.loads(user.read_text())["mcpServers"]["demo"]["enabled"] is False
        assert runtime.tool("mcp__demo__echo") is None

        await allow_project_server(runtime, "proj", True)
        await runtime.wait_all()
        assert runtime.connections["proj"].state == "connected"
        proj = config.find("proj")
        assert proj is not None
        assert TrustStore.read().decision(tmp_path, trust_subject(proj)) is True
    finally:
        await runtime.close()
