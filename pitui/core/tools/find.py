"""The ``find`` tool: files and directories matching a glob, honouring ``.gitignore``.

A pattern without ``/`` matches entry names at any depth (``*.ts``); a pattern with
``/`` matches the path relative to the search directory (``src/**/*.spec.ts``), where
``**/`` may match no directory at all. Hidden entries are included; ``.git`` is not.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.core.tools._common import ToolDetails, ToolParams, run_abortable, text_result
from pitui.core.tools.find_fd import default_fd, find_with_fd
from pitui.core.tools.gitignore import compile_glob, walk
from pitui.core.tools.path_utils import resolve_to_cwd
from pitui.core.tools.schemas import SCHEMAS
from pitui.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    NO_LINE_LIMIT,
    TruncationResult,
    format_size,
    truncate_head,
)

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    """Arguments of ``find``."""

    pattern: str = Field(
        description="Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
    )
    path: str | None = Field(
        default=None, description="Directory to search in (default: current directory)"
    )
    limit: int | None = Field(default=None, description="Maximum number of results (default: 1000)")


class FindDetails(ToolDetails):
    """UI data of ``find``: which limits cut the output."""

    truncation: TruncationResult | None = None
    result_limit_reached: int | None = None


def find_paths(root: str, pattern: str, limit: int) -> list[str]:
    """Relative POSIX paths under ``root`` matching ``pattern`` (directories end in ``/``).

    Blocking: run it in a thread.
    """
    rule = compile_glob(pattern.removeprefix("./"))
    if rule is None:
        return []
    found: list[str] = []
    for entry in walk(root):
        if not rule.matches(entry.rel_path, entry.is_dir):
            continue
        found.append(entry.rel_path + "/" if entry.is_dir else entry.rel_path)
        if len(found) >= limit:
            break
    return sorted(found)  # the order fd's output is sorted into


class FindTool(AgentTool):
    """Search for files by glob pattern."""

    name: ClassVar[str] = "find"
    label: ClassVar[str] = "find"
    description: ClassVar[str] = (
        "Search for files by glob pattern. Returns matching file paths relative to the search "
        f"directory. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} results or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    parameters: ClassVar[type[ToolParams]] = FindParams

    def __init__(
        self, cwd: Path | str, *, fd_path: str | None = None, force_python: bool = False
    ) -> None:
        """``fd_path`` overrides the fd lookup; ``force_python`` never uses fd."""
        self.cwd = Path(cwd)
        self.fd_path = None if force_python else (fd_path or default_fd())

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """Find entries matching ``params.pattern``."""
        assert isinstance(params, FindParams)
        return await run_abortable(self._find(params), cancel)

    async def _find(self, params: FindParams) -> AgentToolResult:
        root = resolve_to_cwd(params.path or ".", self.cwd)
        if not await asyncio.to_thread(os.path.exists, root):
            raise ToolError(f"Path not found: {root}")
        if not await asyncio.to_thread(os.path.isdir, root):
            raise ToolError(f"Not a directory: {root}")
        limit = max(1, params.limit if params.limit is not None else DEFAULT_LIMIT)
        if self.fd_path:
            found = await find_with_fd(self.fd_path, root, params.pattern, limit)
        else:
            found = await asyncio.to_thread(find_paths, root, params.pattern, limit)
        if not found:
            return text_result("No files found matching pattern")
        trunc = truncate_head("\n".join(found), max_lines=NO_LINE_LIMIT)
        details = FindDetails()
        notices: list[str] = []
        if len(found) >= limit:
            notices.append(
                f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
            )
            details.result_limit_reached = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details.truncation = trunc
        output = trunc.content
        if notices:
            output += f"\n\n[{'. '.join(notices)}]"
        return text_result(output, details if notices else None)


store_schema(FindParams, SCHEMAS["find"])
