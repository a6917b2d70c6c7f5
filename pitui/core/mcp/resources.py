"""The resource tools Codex, OpenCode and pi share.

``list_mcp_resources`` (JSON ``{server?, resources: [{server, uri, name, …}],
nextCursor?}``; with ``server`` one page, ``cursor`` the next; without, every resource
of every server), ``list_mcp_resource_templates`` (the same for URI templates) and
``read_mcp_resource`` (``server`` and ``uri``: text as text, images as images, other
binary content saved to a temp file whose path the model gets). They reach every
connected, enabled, non-hidden server that offers resources; they are read-only. MCP
Apps resources (``ui://``, ``text/html;profile=mcp-app``) are left out, as pi does.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent, ToolResultContent
from pitui.core.mcp.client import McpCallError, ServerConnection
from pitui.core.mcp.results import limit_output, resource_contents

Servers = Callable[[], list[ServerConnection]]
Wait = Callable[[], Awaitable[None]]


def _is_app(item: dict[str, Any]) -> bool:
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return uri.startswith("ui://") or "profile=mcp-app" in str(item.get("mimeType", ""))


def _clean(server: str, item: dict[str, Any]) -> dict[str, Any]:
    item = {k: v for k, v in item.items() if k not in ("icons", "_meta")}
    return {"server": server, **item}


class ListParams(BaseModel):
    server: str | None = Field(default=None, description="Only this server's resources.")
    cursor: str | None = Field(default=None, description="Continue a listing of one server.")


class ReadParams(BaseModel):
    server: str = Field(description="The MCP server that offers the resource.")
    uri: str = Field(description="The resource URI.")


class _ResourceTool(AgentTool):
    read_only = True

    def __init__(self, servers: Servers, wait: Wait) -> None:
        self._servers = servers
        self._wait = wait

    async def _targets(self, name: str | None) -> list[ServerConnection]:
        await self._wait()
        servers = [s for s in self._servers() if s.has_resources]
        if name is None:
            return servers
        found = [s for s in servers if s.name == name]
        if not found:
            offered = ", ".join(s.name for s in servers) or "none"
            raise ToolError(
                f'No MCP server "{name}" with resources (servers with resources: {offered})'
            )
        return found


class _ListTool(_ResourceTool):
    parameters = ListParams
    field_name = "resources"
    method = "list_resources"

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        items: list[dict[str, Any]] = []
        next_cursor: str | None = None
        for server in await self._targets(params.server):
            cursor = params.cursor if params.server else None
            while True:
                page = await _page(server, self.method, cursor)
                listed = page.get(self.field_name) or []
                items += [_clean(server.name, i) for i in listed if not _is_app(i)]
                cursor = page.get("nextCursor")
                if params.server is not None or not cursor:
                    next_cursor = cursor if params.server is not None else None
                    break
        body: dict[str, Any] = {self.field_name: items}
        if params.server is not None:
            body = {"server": params.server, **body}
        if next_cursor:
            body["nextCursor"] = next_cursor
        text = json.dumps(body, ensure_ascii=False, indent=2)
        content, _ = await asyncio.to_thread(limit_output, [TextContent(text=text)])
        return AgentToolResult(content=content, details={"count": len(items)})


async def _page(server: ServerConnection, method: str, cursor: str | None) -> dict[str, Any]:
    from mcp_types import PaginatedRequestParams

    params = PaginatedRequestParams(cursor=cursor) if cursor else None
    try:
        result = await server.request(method, lambda s: getattr(s, method)(params=params))
    except McpCallError as exc:
        raise ToolError(str(exc)) from None
    return dict(result.model_dump(by_alias=True, exclude_none=True, mode="json"))


class ListResourcesTool(_ListTool):
    name = "list_mcp_resources"
    label = "list_mcp_resources"
    description = (
        "Lists resources provided by MCP servers. Resources give access to data such as "
        "files, database schemas or application-specific information. Without `server`, "
        "lists every resource of every server; with it, one page (`cursor` continues)."
    )


class ListResourceTemplatesTool(_ListTool):
    name = "list_mcp_resource_templates"
    label = "list_mcp_resource_templates"
    description = (
        "Lists resource URI templates provided by MCP servers, for resources they do not "
        "list directly. Fill a template in and read it with read_mcp_resource."
    )
    field_name = "resourceTemplates"
    method = "list_resource_templates"


class ReadResourceTool(_ResourceTool):
    name = "read_mcp_resource"
    label = "read_mcp_resource"
    description = (
        "Reads a resource from an MCP server by its server name and URI (from "
        "list_mcp_resources, a filled-in template, or a resource link in a tool result)."
    )
    parameters = ReadParams

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        (server,) = await self._targets(params.server)
        try:
            result = await server.request(
                f"resource {params.uri}", lambda s: s.read_resource(params.uri)
            )
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        data = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        content = await asyncio.to_thread(_read_content, params.uri, data.get("contents") or [])
        content, _ = await asyncio.to_thread(limit_output, content)
        details = {"server": params.server, "uri": params.uri}
        return AgentToolResult(content=content or [TextContent(text="(empty)")], details=details)


def _read_content(uri: str, contents: list[dict[str, Any]]) -> list[ToolResultContent]:
    found: list[ToolResultContent] = []
    for item in contents:
        found += resource_contents(str(item.get("uri", uri)), item)
    return found


def resource_tools(servers: Servers, wait: Wait) -> list[AgentTool]:
    return [
        ListResourcesTool(servers, wait),
        ListResourceTemplatesTool(servers, wait),
        ReadResourceTool(servers, wait),
    ]
