"""MCP results as the model reads them (pi 1.6's conversion).

Text blocks stay text and images become image blocks. A resource link names
``read_mcp_resource``; an embedded text resource is its text; other binary content is
saved to a temporary file whose path the model gets. Text over 20 KB keeps its start and
end around pi's ``…N chars truncated…`` marker, in Codex's truncation format, and the
full text goes to a temporary file named in the result. Everything here works on plain
JSON (the result's ``model_dump``), not SDK types.
"""

from __future__ import annotations

import base64
import json
import math
import os
import secrets
import tempfile
from typing import Any
from urllib.parse import urlparse

from pitui.ai.types import ImageContent, TextContent, ToolResultContent
from pitui.core.tools.truncate import format_size

MAX_OUTPUT_BYTES = 20 * 1024
READ_RESOURCE = "read_mcp_resource"


def save_temp(data: bytes, suffix: str) -> str:
    """Write ``data`` to a new private temp file; returns its path (blocking, small)."""
    path = os.path.join(tempfile.gettempdir(), f"pitui-mcp-{secrets.token_hex(8)}{suffix}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    return path


def _suffix(uri: str) -> str:
    path = urlparse(uri).path or uri
    _, ext = os.path.splitext(path)
    return ext if 1 < len(ext) <= 9 and ext[1:].isalnum() else ".bin"


def is_text_mime(mime: str | None) -> bool:
    kind = (mime or "").split(";", 1)[0].strip().lower()
    return (
        kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml"))
    )


def resource_contents(uri: str, contents: dict[str, Any]) -> list[ToolResultContent]:
    """One ``contents`` item of a resource (read or embedded)."""
    mime = contents.get("mimeType")
    if isinstance(contents.get("text"), str):
        return [TextContent(text=contents["text"])]
    blob = contents.get("blob")
    if not isinstance(blob, str):
        return []
    if isinstance(mime, str) and mime.startswith("image/"):
        return [ImageContent(data=blob, mime_type=mime)]
    data = base64.b64decode(blob)
    if is_text_mime(mime):
        return [TextContent(text=data.decode("utf-8", "replace"))]
    kind = f"{mime or 'unknown type'}, {format_size(len(data))}"
    try:
        path = save_temp(data, _suffix(uri))
    except OSError as exc:
        return [TextContent(text=f"[Binary resource {uri} ({kind}) could not be saved: {exc}]")]
    return [TextContent(text=f"[Binary resource {uri} ({kind}) saved to {path}]")]


def _block(server: str, block: dict[str, Any], readable: bool) -> list[ToolResultContent]:
    kind = block.get("type")
    if kind == "text":
        return [TextContent(text=str(block.get("text", "")))]
    if kind == "image":
        return [
            ImageContent(
                data=str(block.get("data", "")), mime_type=block.get("mimeType", "image/png")
            )
        ]
    if kind == "resource_link":
        details = [d for d in (block.get("mimeType"), _maybe_size(block.get("size"))) if d]
        shown = f" ({', '.join(details)})" if details else ""
        about = f": {block['description']}" if block.get("description") else ""
        read = f'. Read it with {READ_RESOURCE} (server "{server}")' if readable else ""
        name = block.get("title") or block.get("name")
        return [TextContent(text=f'[Resource {block.get("uri")} "{name}"{shown}{about}{read}]')]
    if kind == "resource" and isinstance(block.get("resource"), dict):
        resource = block["resource"]
        return resource_contents(str(resource.get("uri", "")), resource)
    if kind == "audio":
        return [TextContent(text=f"[Audio ({block.get('mimeType', 'unknown type')}) not shown]")]
    return [TextContent(text=json.dumps(block, ensure_ascii=False))]


def _maybe_size(value: object) -> str | None:
    return format_size(value) if isinstance(value, int) else None


def truncate_middle(text: str, max_bytes: int = MAX_OUTPUT_BYTES) -> str | None:
    """Start and end of ``text`` (half the budget each) around ``…N chars truncated…``;
    None when it fits. Cuts only between characters."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return None
    head_end = max_bytes // 2
    while head_end > 0 and (data[head_end] & 0xC0) == 0x80:
        head_end -= 1
    tail_start = len(data) - (max_bytes - max_bytes // 2)
    while tail_start < len(data) and (data[tail_start] & 0xC0) == 0x80:
        tail_start += 1
    removed = len(data[head_end:tail_start].decode("utf-8"))
    head, tail = data[:head_end].decode("utf-8"), data[tail_start:].decode("utf-8")
    return f"{head}…{removed} chars truncated…{tail}"


def limit_output(content: list[ToolResultContent]) -> tuple[list[ToolResultContent], str | None]:
    """Keep the text within 20 KB (pi's format); returns the content and the full text's
    file (None when nothing was cut)."""
    combined = "\n".join(b.text for b in content if isinstance(b, TextContent))
    cut = truncate_middle(combined)
    if cut is None:
        return content, None
    path: str | None = None
    try:
        path = save_temp(combined.encode("utf-8"), ".txt")
        where = f"\n\n[Full output: {path} (read it with offset/limit)]"
    except OSError as exc:
        where = f"\n\n[Could not save the full output: {exc}]"
    size = len(combined.encode("utf-8"))
    lines = combined.count("\n") + 1 - (1 if combined.endswith("\n") else 0)
    text = (
        f"Warning: truncated output (original token count: {math.ceil(size / 4)})\n"
        f"Total output lines: {lines}\n\n{cut}{where}"
    )
    images = [b for b in content if isinstance(b, ImageContent)]
    return [TextContent(text=text), *images], path


def convert_result(
    server: str, tool: str, result: dict[str, Any], *, readable: bool = False
) -> tuple[list[ToolResultContent], dict[str, Any], bool]:
    """``(content, details, is_error)`` of a ``CallToolResult`` (as JSON)."""
    blocks = result.get("content") or []
    content: list[ToolResultContent] = []
    for block in blocks:
        if isinstance(block, dict):
            content += _block(server, block, readable)
    if not blocks and "structuredContent" in result:
        content.append(
            TextContent(text=json.dumps(result["structuredContent"], ensure_ascii=False))
        )
    is_error = result.get("isError") is True
    if is_error and not any(isinstance(b, TextContent) and b.text for b in content):
        content.append(TextContent(text=f"MCP tool {server}/{tool} returned an error"))
    content, full = limit_output(content)
    details: dict[str, Any] = {"server": server, "tool": tool}
    if full is not None:
        details["fullOutputPath"] = full
    return content, details, is_error
