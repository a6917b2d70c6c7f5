"""The permission gate's MCP rule: read-only runs, others ask (TUI) or are denied (print)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pitui.core.mcp.client import ServerConnection, ToolInfo
from pitui.core.mcp.config import LoadedConfig, ServerEntry
from pitui.core.mcp.gate import mcp_rule
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.runtime import McpRuntime
from pitui.core.mcp.tools import McpToolSpec, make_tool
from pitui.core.permissions import (
    ApprovalRequest,
    ApprovalResponse,
    PermissionGate,
    PermissionPolicy,
)
from pitui.core.settings import ApprovalMode


def runtime_with_tools(tmp_path: Path, **config: Any) -> McpRuntime:
    entry = ServerEntry("demo", {"command": "x", **config}, "user", tmp_path / "mcp.json")
    runtime = McpRuntime(tmp_path, LoadedConfig(servers=[entry]), log=McpLog(tmp_path / "l"))
    connection = runtime.connections["demo"]
    assert isinstance(connection, ServerConnection)
    for name, read_only in (("echo", True), ("write_note", False)):
        info = ToolInfo(name, name, {"type": "object", "properties": {}},
                        {"readOnlyHint": read_only})  # fmt: skip
        spec = McpToolSpec(f"mcp__demo__{name}", "demo", info, "direct")
        runtime._tools[spec.name] = make_tool(spec, connection, False)
    return runtime


def gate(tmp_path: Path, mode: ApprovalMode, runtime: McpRuntime, asked: list[ApprovalRequest],
         choice: str = "allow_once") -> PermissionGate:  # fmt: skip
    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        asked.append(request)
        return ApprovalResponse(choice)  # type: ignore[arg-type]

    policy = PermissionPolicy(cwd=tmp_path, mode=mode, tool_rule=mcp_rule(runtime))
    return PermissionGate(policy, asker)


async def test_read_only_runs_others_ask(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    checks = gate(tmp_path, "ask", runtime_with_tools(tmp_path), asked, choice="always")
    assert await checks.check("1", "mcp__demo__echo", {}) is None
    assert await checks.check("2", "list_mcp_resources", {}) is None
    assert await checks.check("3", "tool_search", {"query": "x"}) is None
    assert asked == []
    assert await checks.check("4", "mcp__demo__write_note", {"text": "x"}) is None
    assert len(asked) == 1
    assert asked[0].reason == "MCP tool demo/write_note is not marked read-only"
    assert asked[0].always_rule == "mcp__demo__write_note"
    assert await checks.check("5", "mcp__demo__write_note", {"text": "y"}) is None
    assert len(asked) == 1  # remembered
    assert await checks.check("6", "mcp__demo__unknown", {}) is not None


async def test_print_mode_policies(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    runtime = runtime_with_tools(tmp_path)
    denied = await gate(tmp_path, "workspace", runtime, asked).check(
        "1", "mcp__demo__write_note", {}
    )
    assert denied is not None and "--approve all" in denied and '"approve": "always"' in denied
    assert (
        await gate(tmp_path, "workspace", runtime, asked).check("2", "mcp__demo__echo", {}) is None
    )
    assert (
        await gate(tmp_path, "all", runtime, asked).check("3", "mcp__demo__write_note", {}) is None
    )
    none = await gate(tmp_path, "none", runtime, asked).check("4", "mcp__demo__write_note", {})
    assert none is not None and "--approve none" in none
    trusting = runtime_with_tools(tmp_path, approve="always")
    assert (
        await gate(tmp_path, "workspace", trusting, asked).check("5", "mcp__demo__write_note", {})
        is None
    )
    # Project files cannot pre-approve.
    project = ServerEntry("demo", {"command": "x", "approve": "always"}, "project", tmp_path)
    assert not project.approve_always
    policy = PermissionPolicy(cwd=tmp_path, mode="ask", allow_tools=["mcp__demo__*"],
                              tool_rule=mcp_rule(runtime))  # fmt: skip
    assert policy.verdict("mcp__demo__write_note", {}) == ("allow", "")
    assert asked == []


def test_tool_cards_name_the_server() -> None:
    from pitui.core.tool_titles import tool_title_text

    assert tool_title_text("mcp__demo__echo", {"text": "hi"}) == 'demo/echo {"text": "hi"}'
    details = {"server": "my-srv", "tool": "get.it"}
    assert tool_title_text("mcp__my_srv__get_it", {}, details).startswith("my-srv/get.it")


def test_arguments_are_checked_in_pis_words() -> None:
    from pitui.core.mcp.arguments import argument_problem

    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "minimum": 0}},
        "required": ["a", "b"],
    }
    assert argument_problem("mcp__s__add", schema, {"a": 1, "b": 2}) is None
    text = argument_problem("mcp__s__add", schema, {"b": -1})
    assert text == (
        'Validation failed for tool "mcp__s__add":\n'
        "  - root: must have required property 'a'\n"
        "  - b: must be >= 0\n\n"
        'Received arguments:\n{\n  "b": -1\n}'
    )
    assert argument_problem("t", {"type": "nonsense-type"}, {}) is None
