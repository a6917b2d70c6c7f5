"""The /mcp screen and the project-server question, on real servers."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import OptionList, Static

from pitui.core.mcp.config import load_config_now
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.runtime import McpRuntime
from pitui.core.mcp.trust import is_allowed, trust_subject
from pitui.core.trust import TrustStore
from pitui.ui.screens.mcp import McpScreen
from pitui.ui.screens.mcp_trust import McpTrustScreen
from tests.core.mcp.helpers import demo_entry, write_mcp
from tests.ui.command_support import (
    make_app,
    make_session,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
    wait_until,
)


def labels(screen: McpScreen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_mcp_screen_lists_and_changes_servers(tmp_path: Path, pitui_home: Path) -> None:
    user = write_mcp(pitui_home / "mcp.json", {
        "demo": demo_entry(description="The demo"),
        "broken": {"command": str(tmp_path / "missing")},
    })  # fmt: skip
    write_mcp(tmp_path / ".pitui" / "mcp.json", {"proj": demo_entry()})
    config = load_config_now(tmp_path)
    store = TrustStore.read()
    runtime = McpRuntime(tmp_path, config, allowed=lambda e: is_allowed(store, tmp_path, e),
                         log=McpLog(tmp_path / "mcp.log"))  # fmt: skip
    runtime.start()
    session = await make_session(tmp_path)
    app = make_app(session)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await runtime.wait_all()
            screen = McpScreen(runtime)
            app.push_screen(screen)
            await settle(pilot)
            rows = labels(screen)
            assert rows[0].startswith("proj · not allowed yet · 0 tools")
            assert rows[1].startswith("broken · failed")
            assert rows[2].startswith("demo · connected · 11 tools · auto · user: ")
            detail = str(screen.query_one("#mcp-detail", Static).content)
            assert "press a to allow" in detail
            await pilot.press("down")
            await settle(pilot)
            assert "command not found" in str(screen.query_one("#mcp-detail", Static).content)
            await pilot.press("down")
            await settle(pilot)
            detail = str(screen.query_one("#mcp-detail", Static).content)
            assert "echo [direct] (read-only)" in detail and "write_note [direct]" in detail
            assert "demo server starting" in detail  # the stderr tail
            await pilot.press("x")  # auto -> direct
            await settle(pilot)
            assert json.loads(user.read_text())["mcpServers"]["demo"]["exposure"] == "direct"
            await pilot.press("x")
            await settle(pilot)
            assert "demo · connected · 11 tools · deferred" in labels(screen)[2]
            await pilot.press("up", "up", "a")
            await wait_until(pilot, lambda: runtime.connections.get("proj") is not None, "allowed")
            await runtime.wait_all()
            await settle(pilot)
            proj = config.find("proj")
            assert proj is not None
            assert TrustStore.read().decision(tmp_path, trust_subject(proj)) is True
            assert any(r.startswith("proj · connected") for r in labels(screen))
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, McpScreen)

            answers: list[bool | None] = []
            app.push_screen(McpTrustScreen(proj), answers.append)
            await settle(pilot)
            text = str(app.screen.query_one("#mcp-detail", Static).content)
            assert f'"proj" in {tmp_path / ".pitui" / "mcp.json"}' in text
            assert "It runs: " in text and "demo_server.py" in text
            await pilot.press("n")
            await settle(pilot)
            assert answers == [False]
    finally:
        await runtime.close()
        await session.close()


async def test_project_servers_are_asked_about_in_turn(tmp_path: Path, pitui_home: Path) -> None:
    from pitui.ui.mcp_flow import ask_project_servers

    write_mcp(tmp_path / ".pitui" / "mcp.json", {"one": demo_entry(), "two": demo_entry()})
    config = load_config_now(tmp_path)
    runtime = McpRuntime(tmp_path, config, allowed=lambda e: e.scope == "user",
                         log=McpLog(tmp_path / "mcp.log"))  # fmt: skip
    session = await make_session(tmp_path)
    app = make_app(session)
    finished: list[bool] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            ask_project_servers(app, runtime, lambda: finished.append(True))
            await settle(pilot)
            assert isinstance(app.screen, McpTrustScreen) and app.screen.entry.name == "one"
            await pilot.press("y")
            await settle(pilot)
            assert isinstance(app.screen, McpTrustScreen) and app.screen.entry.name == "two"
            await pilot.press("n")
            await wait_until(pilot, lambda: "two" in runtime.refused, "the refusal")
            assert finished == [True]
            await runtime.wait_all()
            assert (
                runtime.connections["one"].state == "connected" and "two" not in runtime.connections
            )
        store = TrustStore.read()
        one, two = config.find("one"), config.find("two")
        assert one is not None and two is not None
        assert store.decision(tmp_path, trust_subject(one)) is True
        assert store.decision(tmp_path, trust_subject(two)) is False
    finally:
        await runtime.close()
        await session.close()
