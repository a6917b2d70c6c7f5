"""The ``write`` tool: create or overwrite a file, creating parent directories."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.core.tools._common import (
    PathCheck,
    ToolParams,
    confirm_path,
    escape_text,
    node_error_text,
    run_abortable,
    text_result,
)
from pitui.core.tools.confined_open import EscapeError, open_file, replace_contents
from pitui.core.tools.path_utils import resolve_to_cwd
from pitui.core.tools.schemas import SCHEMAS


class WriteParams(ToolParams):
    """Arguments of ``write``."""

    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="Content to write to the file")


def js_length(text: str) -> int:
    """``text.length`` in JavaScript (UTF-16 code units), which pi reports as "bytes"."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class WriteTool(AgentTool):
    """Write a whole file."""

    name: ClassVar[str] = "write"
    label: ClassVar[str] = "write"
    description: ClassVar[str] = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    )
    parameters: ClassVar[type[ToolParams]] = WriteParams

    def __init__(self, cwd: Path | str, *, check_path: PathCheck | None = None) -> None:
        self.cwd = Path(cwd)
        self.check_path = check_path

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """Write ``params.content`` to ``params.path``."""
        assert isinstance(params, WriteParams)
        return await run_abortable(self._write(tool_call_id, params), cancel)

    async def _write(self, tool_call_id: str, params: WriteParams) -> AgentToolResult:
        path = resolve_to_cwd(params.path, self.cwd)
        # Before making the parents: that could itself follow a symlink out.
        beneath = await confirm_path(self.check_path, tool_call_id, path)
        data = params.content.encode("utf-8")  # the model's line endings, byte for byte
        try:
            await asyncio.to_thread(_write_file, path, beneath, data)
        except EscapeError as exc:
            raise ToolError(escape_text(path)) from exc
        except OSError as exc:
            raise ToolError(node_error_text(exc, "open", path)) from exc
        return text_result(f"Successfully wrote {js_length(params.content)} bytes to {params.path}")


def _write_file(path: str, beneath: str | None, data: bytes) -> None:
    """Create or overwrite ``path`` (parents made), opened beneath ``beneath``. Blocking."""
    fd = open_file(path, beneath, os.O_WRONLY | os.O_CREAT, make_parents=True)
    try:
        replace_contents(fd, data)
    finally:
        os.close(fd)


store_schema(WriteParams, SCHEMAS["write"])
