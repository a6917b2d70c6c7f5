"""The permission gate's rule for MCP calls.

A tool the server marks ``readOnlyHint`` runs without asking, and so do the resource
tools and ``tool_search`` (they only read). Any other MCP call follows the approval
mode: ``all`` allows it, ``none`` denies it, ``workspace`` (print mode's default: nobody
to ask) denies it with how to allow it, and the TUI's modes ask, naming server and
tool. A server with ``"approve": "always"`` in the user's ``mcp.json`` (never the
project's: a repository must not pre-approve its own tools) runs without asking, and so
do tools an "always" answer remembered (``mcp__server__*`` patterns work too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitui import paths
from pitui.core.mcp.naming import RESOURCE_TOOLS, TOOL_SEARCH, name_matcher
from pitui.core.permissions import PermissionPolicy, ToolRule, Verdict

if TYPE_CHECKING:
    from pitui.core.mcp.runtime import McpRuntime


def workspace_denial(server: str, tool: str) -> str:
    return (
        f"MCP tool {server}/{tool} is not marked read-only, and nobody can approve it here; "
        f'run with --approve all, or set "approve": "always" for server "{server}" '
        f"in {paths.mcp_file()}"
    )


def mcp_rule(runtime: McpRuntime) -> ToolRule:
    """The rule for ``runtime``'s tools (None for every other tool)."""

    def rule(
        policy: PermissionPolicy, name: str, args: dict[str, Any]
    ) -> tuple[Verdict, str] | None:
        if name in RESOURCE_TOOLS or name == TOOL_SEARCH:
            return "allow", ""
        if not name.startswith("mcp__"):
            return None
        tool = runtime.tool(name)
        if tool is None:
            return "deny", "unknown MCP tool"
        server, tool_name = tool.spec.server, tool.spec.info.name
        connection = runtime.connections.get(server)
        if tool.read_only or (connection is not None and connection.entry.approve_always):
            return "allow", ""
        if policy.mode == "none":
            return "deny", "mutating tools are disabled (--approve none)"
        if name_matcher([*policy.allow_tools, *policy.user.tools])(name):
            return "allow", ""
        if policy.mode == "workspace":
            return "deny", workspace_denial(server, tool_name)
        return "ask", f"MCP tool {server}/{tool_name} is not marked read-only"

    return rule
