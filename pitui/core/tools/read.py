"""The ``read`` tool: a text file page by page, or an image as an image block."""

from __future__ import annotations

import asyncio
import base64
import errno
import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.ai.types import ImageContent, TextContent
from pitui.core.tools._common import (
    ToolDetails,
    ToolParams,
    node_error_text,
    run_abortable,
    text_result,
)
from pitui.core.tools.images import SNIFF_BYTES, dimension_note, resize_image, sniff_image_mime
from pitui.core.tools.path_utils import resolve_read_path
from pitui.core.tools.schemas import SCHEMAS
from pitui.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    byte_len,
    format_size,
    truncate_head,
)


class ReadParams(ToolParams):
    """Arguments of ``read``."""

    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | None = Field(
        default=None, description="Line number to start reading from (1-indexed)"
    )
    limit: int | None = Field(default=None, description="Maximum number of lines to read")


class ReadDetails(ToolDetails):
    """UI data of ``read``: present only when the output was truncated."""

    truncation: TruncationResult | None = None


def _paginate(text: str, path: str, offset: int | None, limit: int | None) -> AgentToolResult:
    """Select lines [offset, offset+limit), head-truncate, and append pi's notices."""
    all_lines = text.split("\n")
    total = len(all_lines)
    start = max(0, offset - 1) if offset else 0
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
    first = start + 1
    user_limited: int | None = None
    if limit is not None:
        end = min(start + limit, total)
        selected = "\n".join(all_lines[start:end])
        user_limited = end - start
    else:
        selected = "\n".join(all_lines[start:])
    trunc = truncate_head(selected)
    limit_text = format_size(DEFAULT_MAX_BYTES)
    if trunc.first_line_exceeds_limit:
        size = format_size(byte_len(all_lines[start]))
        output = (
            f"[Line {first} is {size}, exceeds {limit_text} limit. "
            f"Use bash: sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return text_result(output, ReadDetails(truncation=trunc))
    if trunc.truncated:
        last = first + trunc.output_lines - 1
        if trunc.truncated_by == "lines":
            notice = (
                f"[Showing lines {first}-{last} of {total}. Use offset={last + 1} to continue.]"
            )
        else:
            notice = (
                f"[Showing lines {first}-{last} of {total} ({limit_text} limit). "
                f"Use offset={last + 1} to continue.]"
            )
        return text_result(f"{trunc.content}\n\n{notice}", ReadDetails(truncation=trunc))
    if user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        next_offset = start + user_limited + 1
        notice = f"[{remaining} more lines in file. Use offset={next_offset} to continue.]"
        return text_result(f"{trunc.content}\n\n{notice}")
    return text_result(trunc.content)


class ReadTool(AgentTool):
    """Read a text file (paged, truncated with continuation notices) or an image."""

    name: ClassVar[str] = "read"
    label: ClassVar[str] = "read"
    description: ClassVar[str] = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). "
        "Images are sent as attachments. For text files, output is truncated to "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset "
        "until complete."
    )
    parameters: ClassVar[type[ToolParams]] = ReadParams

    def __init__(self, cwd: Path | str, *, auto_resize_images: bool = True) -> None:
        self.cwd = Path(cwd)
        self.auto_resize_images = auto_resize_images

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """Read ``params.path``; see the tool description for limits."""
        assert isinstance(params, ReadParams)
        return await run_abortable(self._read(params), cancel)

    async def _read(self, params: ReadParams) -> AgentToolResult:
        path = await asyncio.to_thread(resolve_read_path, params.path, self.cwd)
        if not await asyncio.to_thread(os.access, path, os.R_OK):
            error = OSError(errno.ENOENT, os.strerror(errno.ENOENT))
            if await asyncio.to_thread(os.path.exists, path):
                error = OSError(errno.EACCES, os.strerror(errno.EACCES))
            raise ToolError(node_error_text(error, "access", path))
        try:
            raw = await asyncio.to_thread(Path(path).read_bytes)
        except OSError as exc:
            raise ToolError(node_error_text(exc, "open", path)) from exc
        mime = sniff_image_mime(raw[:SNIFF_BYTES])
        if mime is not None:
            return await self._image(raw, mime)
        return _paginate(raw.decode("utf-8", "replace"), params.path, params.offset, params.limit)

    async def _image(self, raw: bytes, mime: str) -> AgentToolResult:
        if not self.auto_resize_images:
            data = base64.b64encode(raw).decode("ascii")
            return AgentToolResult(
                content=[
                    TextContent(text=f"Read image file [{mime}]"),
                    ImageContent(data=data, mime_type=mime),
                ]
            )
        image = await asyncio.to_thread(resize_image, raw, mime)
        note = f"Read image file [{image.mime_type}]"
        extra = dimension_note(image)
        if extra:
            note += f"\n{extra}"
        return AgentToolResult(
            content=[
                TextContent(text=note),
                ImageContent(data=image.data, mime_type=image.mime_type),
            ]
        )


store_schema(ReadParams, SCHEMAS["read"])
