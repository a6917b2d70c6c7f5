"""Exposure, tool_search, the mcp_servers section and tool filters (a real server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.agent.state import AgentState
from pitui.agent.tool import AgentTool
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent, ToolResultMessage
from pitui.core.mcp.config import LoadedConfig, ServerEntry
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.prompt import servers_section
from pitui.core.mcp.runtime import (
    STARTUP_WAIT_ENV,
    STARTUP_WAIT_S,
    McpRuntime,
    effective_exposure,
    loaded_on_branch,
    startup_wait,
)
from pitui.core.tools import create_tools
from tests.core.mcp.helpers import demo_entry


def entry(**config: Any) -> ServerEntry:
    return ServerEntry("demo", {"command": "x", **config}, "user", Path("mcp.json"))


def test_exposure_rules() -> None:
    assert effective_exposure(entry(), "t", 15) == "direct"
    assert effective_exposure(entry(), "t", 16) == "deferred"
    assert effective_exposure(entry(exposure="codemode"), "t", 1) == "deferred"
    tools = {"get_*": "direct", "drop": "hidden"}
    assert (
        effective_exposure(entry(exposure="deferred", toolExposure=tools), "get_x", 1) == "direct"
    )
    assert effective_exposure(entry(exposure="deferred", toolExposure=tools), "drop", 1) == "hidden"
    assert effective_exposure(entry(exposure="hidden", toolExposure=tools), "other", 1) == "hidden"


def test_section_limits() -> None:
    assert servers_section([]) is None
    text = servers_section([("mcp__b", "Beta"), ("mcp__a", "")])
    assert text == (
        "MCP servers whose tools are not declared to you. Load the tools of `tool_search` "
        "servers with `tool_search`.\n- mcp__a (tool_search)\n- mcp__b (tool_search): Beta"
    )
    many = servers_section([(f"mcp__server_{i:03}", "x" * 300) for i in range(200)])
    assert many is not None and len(many) <= 4096 and "more servers; find" in many


def names(tools: list[AgentTool]) -> list[str]:
    return [t.name for t in tools]


def make_runtime(tmp_path: Path, config: dict[str, Any], **options: Any) -> McpRuntime:
    server = ServerEntry("demo", config, "user", tmp_path / "mcp.json")
    return McpRuntime(
        tmp_path, LoadedConfig(servers=[server]), log=McpLog(tmp_path / "mcp.log"), **options
    )


async def test_deferred_tools_are_found_loaded_and_recorded(tmp_path: Path) -> None:
    config = demo_entry(exposure="deferred", toolExposure={"write_note": "hidden"})
    runtime = make_runtime(tmp_path, config)
    state = AgentState(system_prompt="BASE", tools=create_tools(tmp_path, ["read"]))
    runtime.attach(state)
    runtime.start()
    try:
        await runtime.before_prompt([])  # deferred only: the prompt does not wait for it
        assert names(state.tools) == ["read", "tool_search"]
        await runtime.wait_all()
        await runtime.before_prompt([])
        assert names(state.tools)[:2] == ["read", "tool_search"]
        assert not any(n.startswith("mcp__demo__") for n in names(state.tools))
        assert state.system_prompt == (
            "BASE\n\n<mcp_servers>\nMCP servers whose tools are not declared to you. Load the "
            "tools of `tool_search` servers with `tool_search`.\n"
            "- mcp__demo (tool_search): A demo server for pitui's tests.\n</mcp_servers>"
        )
        search = next(t for t in state.tools if t.name == "tool_search")
        params = search.parameters.model_validate({"query": "echo the text", "limit": 2})
        result = await search.execute("c1", params, AbortSignal(), lambda _r: None)
        assert result.details["loaded"][0] == "mcp__demo__echo"
        text = result.content[0]
        assert isinstance(text, TextContent)
        assert text.text.startswith("Loaded 2 tools. They are available from your next call:\n")
        assert "- mcp__demo__echo: Echo the text back." in text.text
        assert "mcp__demo__echo" in names(state.tools)  # declared at once, for the next call
        hidden = search.parameters.model_validate({"query": "write note"})
        found = await search.execute("c2", hidden, AbortSignal(), lambda _r: None)
        assert "mcp__demo__write_note" not in found.details["loaded"]

        # The transcript records it: another branch (no such result) does not have it.
        record = ToolResultMessage(
            tool_call_id="c1", tool_name="tool_search", content=[], details=result.details
        )
        assert loaded_on_branch([record]) == set(result.details["loaded"])
        await runtime.before_prompt([])
        assert "mcp__demo__echo" not in names(state.tools)
        await runtime.before_prompt([record])
        assert "mcp__demo__echo" in names(state.tools)
    finally:
        await runtime.close()


async def test_tools_and_exclude_filters(tmp_path: Path) -> None:
    runtime = make_runtime(
        tmp_path,
        demo_entry(exposure="deferred"),
        tools_filter=["read", "mcp__demo__e*", "mcp__demo__add", "list_mcp_resources"],
        exclude=["mcp__demo__add", "read_mcp_resource"],
    )
    runtime.start()
    try:
        await runtime.before_prompt([])
        declared = names(runtime.declared())
        assert "mcp__demo__echo" in declared  # named by --tools: declared, not deferred
        assert "mcp__demo__add" not in declared and runtime.tool("mcp__demo__add") is None
        assert runtime.tool("mcp__demo__write_note") is None
        assert "read_mcp_resource" not in declared and "list_mcp_resources" in declared
    finally:
        await runtime.close()


def test_the_first_prompts_wait_is_pis_unless_the_variable_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(STARTUP_WAIT_ENV, raising=False)
    assert startup_wait() == STARTUP_WAIT_S == 10.0
    for value, wait in (("45", 45.0), ("0", 0.0), ("2.5", 2.5), ("-1", 10.0), ("soon", 10.0)):
        monkeypatch.setenv(STARTUP_WAIT_ENV, value)
        assert startup_wait() == wait
