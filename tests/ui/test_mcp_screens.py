"""``/mcp`` and the project-server question, on a session with real servers."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import OptionList, Static

from pitui.core.mcp.trust import trust_subject
from pitui.core.trust import TrustStore
from pitui.ui.commands.mcp import ask_project_servers
from pitui.ui.screens.mcp import McpScreen
from pitui.ui.screens.mcp_trust import McpTrustScreen
from tests.core.mcp.helpers import demo_entry, write_mcp
from tests.ui.command_support import (
    make_app,
    make_session,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
    submit,
    wait_until,
)


def labels(screen: McpScreen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def detail(screen: McpScreen) -> str:
    return str(screen.query_one("#mcp-detail", Static).content)


async def test_mcp_lists_and_changes_servers(tmp_path: Path, pitui_home: Path) -> None:
    user = write_mcp(pitui_home / "mcp.json", {
        "demo": demo_entry(description="The demo"),
        "broken": {"command": str(tmp_path / "missing")},
    })  # fmt: skip
    write_mcp(tmp_path / ".pitui" / "mcp.json", {"proj": demo_entry()})
    session = await make_session(tmp_path)
    runtime = session.mcp
    assert runtime is not None
    app = make_app(session)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await runtime.wait_all()
            await submit(pilot, "/mcp")
            await wait_until(pilot, lambda: isinstance(app.screen, McpScreen), "the screen")
            screen = app.screen
            assert isinstance(screen, McpScreen)
            rows = labels(screen)
            assert rows[0].startswith("proj · not allowed yet · 0 tools")
            assert rows[1].startswith("broken · failed")
            assert rows[2].startswith("demo · connected · 11 tools · auto · user: ")
            assert "press a to allow" in detail(screen)
            await pilot.press("down")
            await settle(pilot)
            assert "command not found" in detail(screen)
            await pilot.press("down")
            await settle(pilot)
            shown = detail(screen)
            assert "echo [direct] (read-only)" in shown and "write_note [direct]" in shown
            assert "demo server starting" in shown  # the stderr tail
            await pilot.press("x")  # auto -> direct
            await settle(pilot)
            assert json.loads(user.read_text())["mcpServers"]["demo"]["exposure"] == "direct"
            await pilot.press("x")
            await settle(pilot)
            assert "demo · connected · 11 tools · deferred" in labels(screen)[2]
            await pilot.press("up", "up", "a")
            await wait_until(pilot, lambda: "proj" in runtime.connections, "allowed")
            await runtime.wait_all()
            await settle(pilot)
            proj = runtime.config.find("proj")
            assert proj is not None
            assert TrustStore.read().decision(tmp_path, trust_subject(proj)) is True
            assert any(r.startswith("proj · connected") for r in labels(screen))
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, McpScreen)
    finally:
        await session.close()


async def test_project_servers_are_asked_about_in_turn(tmp_path: Path, pitui_home: Path) -> None:
    write_mcp(tmp_path / ".pitui" / "mcp.json", {"one": demo_entry(), "two": demo_entry()})
    session = await make_session(tmp_path)
    runtime = session.mcp
    assert runtime is not None and [e.name for e in runtime.untrusted] == ["one", "two"]
    app = make_app(session)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.run_worker(ask_project_servers(app, runtime))
            await wait_until(pilot, lambda: isinstance(app.screen, McpTrustScreen), "a question")
            screen = app.screen
            assert isinstance(screen, McpTrustScreen) and screen.entry.name == "one"
            text = str(screen.query_one("#mcp-detail", Static).content)
            assert f'"one" in {tmp_path / ".pitui" / "mcp.json"}' in text
            assert "It runs: " in text and "demo_server.py" in text
            await pilot.press("y")
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, McpTrustScreen) and app.screen.entry.name == "two",
                "the second question",
            )
            await pilot.press("n")
            await wait_until(pilot, lambda: "two" in runtime.refused, "the refusal")
            await runtime.wait_all()
            assert runtime.connections["one"].state == "connected"
            assert "two" not in runtime.connections
        store = TrustStore.read()
        one, two = runtime.config.find("one"), runtime.config.find("two")
        assert one is not None and two is not None
        assert store.decision(tmp_path, trust_subject(one)) is True
        assert store.decision(tmp_path, trust_subject(two)) is False
    finally:
        await session.close()
