"""The ``ls`` tool: one directory's entries, dotfiles included, directories suffixed ``/``."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.core.tools._common import (
    ToolDetails,
    ToolParams,
    node_error_text,
    run_abortable,
    text_result,
)
from pitui.core.tools.path_utils import resolve_to_cwd
from pitui.core.tools.schemas import SCHEMAS
from pitui.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    NO_LINE_LIMIT,
    TruncationResult,
    format_size,
    truncate_head,
)

DEFAULT_LIMIT = 500


class LsParams(ToolParams):
    """Arguments of ``ls``."""

    path: str | None = Field(
        default=None, description="Directory to list (default: current directory)"
    )
    limit: int | None = Field(
        default=None, description="Maximum number of entries to return (default: 500)"
    )


class LsDetails(ToolDetails):
    """UI data of ``ls``: which limits cut the output."""

    truncation: TruncationResult | None = None
    entry_limit_reached: int | None = None


def list_directory(path: str, limit: int) -> tuple[list[str], bool]:
    """Sorted entries (case-insensitive, ``/`` on directories) and whether ``limit`` cut them.

    Blocking: run it in a thread. Raises :class:`ToolError` with pi's texts.
    """
    if not os.path.exists(path):
        raise ToolError(f"Path not found: {path}")
    if not os.path.isdir(path):
        raise ToolError(f"Not a directory: {path}")
    try:
        names = os.listdir(path)
    except OSError as exc:
        raise ToolError(f"Cannot read directory: {node_error_text(exc, 'scandir', path)}") from exc
    names.sort(key=str.lower)
    results: list[str] = []
    for name in names:
        if len(results) >= limit:
            return results, True
        try:
            # stat follows symlinks, as pi's statSync: a link to a directory shows "/".
            is_dir = stat.S_ISDIR(os.stat(os.path.join(path, name)).st_mode)
        except OSError:
            continue  # dangling link or vanished entry: pi skips what it can't stat
        results.append(name + "/" if is_dir else name)
    return results, False


class LsTool(AgentTool):
    """List a directory."""

    name: ClassVar[str] = "ls"
    label: ClassVar[str] = "ls"
    description: ClassVar[str] = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for "
        f"directories. Includes dotfiles. Output is truncated to {DEFAULT_LIMIT} entries or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    parameters: ClassVar[type[ToolParams]] = LsParams

    def __init__(self, cwd: Path | str) -> None:
        self.cwd = Path(cwd)

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """List ``params.path``."""
        assert isinstance(params, LsParams)
        return await run_abortable(self._ls(params), cancel)

    async def _ls(self, params: LsParams) -> AgentToolResult:
        path = resolve_to_cwd(params.path or ".", self.cwd)
        limit = params.limit if params.limit is not None else DEFAULT_LIMIT
        entries, limited = await asyncio.to_thread(list_directory, path, limit)
        if not entries:
            return text_result("(empty directory)")
        trunc = truncate_head("\n".join(entries), max_lines=NO_LINE_LIMIT)
        details = LsDetails()
        notices: list[str] = []
        if limited:
            notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
            details.entry_limit_reached = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details.truncation = trunc
        output = trunc.content
        if notices:
            output += f"\n\n[{'. '.join(notices)}]"
        return text_result(output, details if notices else None)


store_schema(LsParams, SCHEMAS["ls"])
