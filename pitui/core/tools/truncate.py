"""Head/tail truncation of tool output with pi's limits (2000 lines, 50 KB) and size format.

Two independent limits apply; whichever is hit first wins. Lines are ``split("\\n")``
(a trailing newline yields a final empty line), and sizes are UTF-8 bytes. Only whole
lines are kept, except when tail truncation meets a single last line larger than the
byte limit: then its last bytes are kept (cut on a character boundary).
"""

from __future__ import annotations

from typing import Literal

from pitui.ai._base import ON_FIRST_USE, PiModel

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
#: A line limit that never binds (pi uses Number.MAX_SAFE_INTEGER for byte-only truncation).
NO_LINE_LIMIT = 2**53 - 1

TruncatedBy = Literal["lines", "bytes"]


class TruncationResult(PiModel):
    """What a truncation kept and why; tools put it in ``details.truncation`` for the UI.

    Built here with ``model_construct`` (the values are this module's own): its validator
    and serializer wait for a result that is shown or saved (a truncated output's details).
    """

    model_config = ON_FIRST_USE

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool = False
    first_line_exceeds_limit: bool = False
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_json_dict(self) -> dict[str, object]:
        """pi's JSON; ``truncatedBy`` is always present (``null`` when not truncated)."""
        data = super().to_json_dict()
        data.setdefault("truncatedBy", None)
        return data


def format_size(num_bytes: int) -> str:
    """``<n>B`` below 1 KiB, ``<x.x>KB`` below 1 MiB, else ``<x.x>MB`` (pi's formatSize)."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    return f"{num_bytes / (1024 * 1024):.1f}MB"


def byte_len(text: str) -> int:
    """UTF-8 length of ``text`` (lone surrogates count as the replacement character)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _untruncated(
    content: str, lines: int, size: int, max_lines: int, max_bytes: int
) -> TruncationResult:
    return TruncationResult.model_construct(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=lines,
        total_bytes=size,
        output_lines=lines,
        output_bytes=size,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the first whole lines that fit both limits (file reads, search results).

    If the first line alone exceeds ``max_bytes`` the output is empty and
    ``first_line_exceeds_limit`` is set.
    """
    total_bytes = byte_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    if byte_len(lines[0]) > max_bytes:
        return TruncationResult.model_construct(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines[:max_lines]):
        size = byte_len(line) + (1 if index > 0 else 0)
        if used + size > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += size
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    output = "\n".join(kept)
    return TruncationResult.model_construct(
        content=output,
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=byte_len(output),
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the last whole lines that fit both limits (command output: errors are at the end).

    If the very last line alone exceeds ``max_bytes``, its last bytes are kept and
    ``last_line_partial`` is set.
    """
    total_bytes = byte_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        size = byte_len(line) + (1 if kept else 0)
        if used + size > max_bytes:
            truncated_by = "bytes"
            if not kept:
                tail = _tail_bytes(line, max_bytes)
                kept.append(tail)
                used = byte_len(tail)
                partial = True
            break
        kept.append(line)
        used += size
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    output = "\n".join(reversed(kept))
    return TruncationResult.model_construct(
        content=output,
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=byte_len(output),
        last_line_partial=partial,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def _tail_bytes(text: str, max_bytes: int) -> str:
    """The last ``max_bytes`` bytes of ``text``, starting on a UTF-8 character boundary."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "replace")


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters plus ``... [truncated]`` (grep match lines)."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
