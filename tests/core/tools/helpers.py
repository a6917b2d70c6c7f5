"""Shared helpers for the built-in tool tests: run a tool the way the agent loop does."""

from __future__ import annotations

import os
from typing import Any

from pitui.agent.tool import AgentTool, AgentToolResult
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent


async def run(
    tool: AgentTool,
    signal: AbortSignal | None = None,
    updates: list[AgentToolResult] | None = None,
    **args: Any,
) -> AgentToolResult:
    """Validate ``args`` with the tool's parameter model and execute it."""
    params = tool.parameters.model_validate(args)
    sink: list[AgentToolResult] = updates if updates is not None else []
    return await tool.execute("call-1", params, signal or AbortSignal(), sink.append)


def text(result: AgentToolResult) -> str:
    """All text blocks of a result joined with newlines."""
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


def read_and_remove(path: str) -> str:
    """The text of a temp file a tool left behind; the file is deleted."""
    with open(path, encoding="utf-8") as handle:
        data = handle.read()
    os.unlink(path)
    return data
