"""Agent tools made from MCP tools: ``mcp__<server>__<tool>``.

Each MCP tool becomes an :class:`~pitui.agent.tool.AgentTool` whose parameters schema is
the server's input schema (pitui's AJV-like coercion applies; the server validates).
The call goes to the server's connection, which reconnects a dropped server first. An
``isError`` result, a timeout or a crash is the tool's error result, whose text the
model reads; nothing raises past the tool. ``details`` names the server and tool for
the tool card (``server/tool``), never sent to the model.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent
from pitui.core.mcp.arguments import argument_problem
from pitui.core.mcp.client import McpCallError, ServerConnection, ToolInfo
from pitui.core.mcp.results import convert_result


class AnyArguments(BaseModel):
    """Arguments of an MCP tool: any object (its schema is the server's)."""

    model_config = ConfigDict(extra="allow")


def arguments_of(params: BaseModel) -> dict[str, Any]:
    return dict(params.model_extra or {})


@dataclass(frozen=True, slots=True)
class McpToolSpec:
    """An MCP tool as registered: its model-facing name and effective exposure."""

    name: str
    server: str
    info: ToolInfo
    exposure: str
    """``direct``, ``deferred`` or ``hidden`` (``codemode`` is read as ``deferred``)."""


class McpTool(AgentTool):
    """Base of the per-tool classes :func:`make_tool` creates."""

    parameters: ClassVar[type[BaseModel]] = AnyArguments
    spec: ClassVar[McpToolSpec]

    def __init__(self, connection: ServerConnection, readable: bool = False) -> None:
        self.connection = connection
        self.readable = readable

    def parameters_schema(self) -> dict[str, Any]:
        return self.spec.info.input_schema

    @property
    def read_only(self) -> bool:
        return self.spec.info.read_only

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        server, tool = self.spec.server, self.spec.info.name
        details = {"server": server, "tool": tool}

        def progress(value: float, total: float | None, message: str | None) -> None:
            text = message or f"Progress {value:g}" + (f"/{total:g}" if total is not None else "")
            on_update(AgentToolResult(content=[TextContent(text=text)], details=details))

        arguments = arguments_of(params)
        schema = self.spec.info.input_schema
        problem = await asyncio.to_thread(argument_problem, self.name, schema, arguments)
        if problem is not None:
            raise ToolError(problem)
        call = asyncio.ensure_future(self.connection.call_tool(tool, arguments, progress))
        aborted = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({call, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
        if not call.done():
            call.cancel()
            raise ToolError(f"MCP call {server}/{tool} was aborted")
        try:
            result = call.result()
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        content, details, is_error = await asyncio.to_thread(
            convert_result, server, tool, result, readable=self.readable
        )
        if is_error:
            raise ToolError("\n".join(b.text for b in content if isinstance(b, TextContent)))
        return AgentToolResult(content=content, details=details)


def make_tool(spec: McpToolSpec, connection: ServerConnection, readable: bool) -> McpTool:
    """An instance of a new :class:`McpTool` subclass for ``spec`` (names are class
    attributes of tools)."""
    info = spec.info
    attributes = {
        "name": spec.name,
        "label": f"{spec.server}/{info.name}",
        "description": info.description or f"MCP tool {info.name} from server {spec.server}",
        "spec": spec,
    }
    cls = type(f"McpTool_{spec.name}", (McpTool,), attributes)
    tool: McpTool = cls(connection, readable)
    return tool


def declared_schema(tool: AgentTool) -> dict[str, Any]:
    """A copy of the schema the model sees (for tests and listings)."""
    return copy.deepcopy(tool.parameters_schema())
