"""The ``grep`` tool: search file contents (ripgrep when installed, else pure Python)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.core.tools._common import ToolDetails, ToolParams, run_abortable, text_result
from pitui.core.tools.grep_search import (
    Match,
    SearchResult,
    SearchSpec,
    is_directory,
    search_with_python,
    search_with_rg,
)
from pitui.core.tools.path_utils import resolve_to_cwd, to_posix
from pitui.core.tools.schemas import SCHEMAS
from pitui.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    NO_LINE_LIMIT,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
)

DEFAULT_LIMIT = 100


class GrepParams(ToolParams):
    """Arguments of ``grep``."""

    pattern: str = Field(description="Search pattern (regex or literal string)")
    path: str | None = Field(
        default=None, description="Directory or file to search (default: current directory)"
    )
    glob: str | None = Field(
        default=None, description="Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"
    )
    ignore_case: bool | None = Field(
        default=None, description="Case-insensitive search (default: false)"
    )
    literal: bool | None = Field(
        default=None,
        description="Treat pattern as literal string instead of regex (default: false)",
    )
    context: int | None = Field(
        default=None, description="Number of lines to show before and after each match (default: 0)"
    )
    limit: int | None = Field(
        default=None, description="Maximum number of matches to return (default: 100)"
    )


class GrepDetails(ToolDetails):
    """UI data of ``grep``: which limits cut the output."""

    truncation: TruncationResult | None = None
    match_limit_reached: int | None = None
    lines_truncated: bool | None = None


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            text = handle.read()
    except OSError:
        return []
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


class _Formatter:
    """Renders matches as pi does: ``file:n: text`` and context ``file-n- text``."""

    def __init__(self, root: str, root_is_dir: bool, context: int) -> None:
        self.root = root
        self.root_is_dir = root_is_dir
        self.context = context
        self.lines_truncated = False
        self._cache: dict[str, list[str]] = {}

    def display_path(self, file_path: str) -> str:
        if self.root_is_dir:
            relative = os.path.relpath(file_path, self.root)
            if relative and not relative.startswith(".."):
                return to_posix(relative)
        return os.path.basename(file_path)

    def block(self, file_path: str, number: int) -> list[str]:
        shown = self.display_path(file_path)
        if file_path not in self._cache:
            self._cache[file_path] = _read_lines(file_path)
        lines = self._cache[file_path]
        if not lines:
            return [f"{shown}:{number}: (unable to read file)"]
        first = max(1, number - self.context) if self.context > 0 else number
        last = min(len(lines), number + self.context) if self.context > 0 else number
        out: list[str] = []
        for current in range(first, last + 1):
            raw = lines[current - 1] if current - 1 < len(lines) else ""
            text, cut = truncate_line(raw.replace("\r", ""))
            self.lines_truncated = self.lines_truncated or cut
            sep = ":" if current == number else "-"
            out.append(f"{shown}{sep}{current}{sep} {text}")
        return out

    def render(self, matches: list[Match]) -> list[str]:
        """All blocks (blocking: reads files; run in a thread)."""
        return [line for path, number in matches for line in self.block(path, number)]


class GrepTool(AgentTool):
    """Search file contents for a regex or literal."""

    name: ClassVar[str] = "grep"
    label: ClassVar[str] = "grep"
    description: ClassVar[str] = (
        "Search file contents for a pattern. Returns matching lines with file paths and line "
        f"numbers. Respects .gitignore. Output is truncated to {DEFAULT_LIMIT} matches or "
        f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Long lines are truncated to "
        f"{GREP_MAX_LINE_LENGTH} chars."
    )
    parameters: ClassVar[type[ToolParams]] = GrepParams

    def __init__(
        self, cwd: Path | str, *, rg_path: str | None = None, force_python: bool = False
    ) -> None:
        """``rg_path`` overrides the ripgrep lookup; ``force_python`` never uses ripgrep."""
        self.cwd = Path(cwd)
        self.rg_path = None if force_python else (rg_path or shutil.which("rg"))

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """Search; see the tool description for limits."""
        assert isinstance(params, GrepParams)
        return await run_abortable(self._grep(params), cancel)

    async def _grep(self, params: GrepParams) -> AgentToolResult:
        root = resolve_to_cwd(params.path or ".", self.cwd)
        try:
            root_is_dir = await asyncio.to_thread(is_directory, root)
        except OSError as exc:
            raise ToolError(f"Path not found: {root}") from exc
        spec = SearchSpec(
            pattern=params.pattern,
            path=root,
            is_directory=root_is_dir,
            glob=params.glob,
            ignore_case=bool(params.ignore_case),
            literal=bool(params.literal),
            limit=max(1, params.limit if params.limit is not None else DEFAULT_LIMIT),
        )
        if self.rg_path:
            result = await search_with_rg(self.rg_path, spec)
        else:
            result = await asyncio.to_thread(search_with_python, spec)
        if not result.matches:
            return text_result("No matches found")
        context = params.context if params.context and params.context > 0 else 0
        formatter = _Formatter(root, root_is_dir, context)
        lines = await asyncio.to_thread(formatter.render, result.matches)
        return _render(lines, result, spec.limit, formatter.lines_truncated)


def _render(lines: list[str], result: SearchResult, limit: int, cut: bool) -> AgentToolResult:
    """Byte-truncate the output and append pi's notices."""
    trunc = truncate_head("\n".join(lines), max_lines=NO_LINE_LIMIT)
    details = GrepDetails()
    notices: list[str] = []
    if result.limit_reached:
        notices.append(
            f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern"
        )
        details.match_limit_reached = limit
    if trunc.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details.truncation = trunc
    if cut:
        notices.append(
            f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        )
        details.lines_truncated = True
    output = trunc.content
    if notices:
        output += f"\n\n[{'. '.join(notices)}]"
    return text_result(output, details if notices else None)


store_schema(GrepParams, SCHEMAS["grep"])
