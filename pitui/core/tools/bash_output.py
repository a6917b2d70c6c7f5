"""Command output capture for the ``bash`` tool: rolling tail buffer plus spill file.

The buffer keeps about 100 KB of the most recent output (whole chunks are dropped
from the front). Once the total output passes 50 KB, everything — what was
buffered and all that follows — is also written to ``$TMPDIR/pi-bash-<hex>.log`` so
the model can read the full output later; written redacted (known keys become ``***``,
as in the output the model is shown), since the model reads it with its tools.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
from collections import deque
from pathlib import Path
from typing import BinaryIO

from pitui.core.redaction import StreamRedactor, spill_redactor
from pitui.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    TruncationResult,
    format_size,
    truncate_tail,
)
from pitui.private_files import open_private

ROLLING_BUFFER_BYTES = DEFAULT_MAX_BYTES * 2


def temp_output_path(folder: str | None = None) -> str:
    """A fresh path for a full-output log in ``folder`` (default: the system temp dir)."""
    return os.path.join(folder or tempfile.gettempdir(), f"pi-bash-{secrets.token_hex(8)}.log")


class OutputCollector:
    """Accumulates output chunks; renders the tail the model sees."""

    def __init__(self, spill_dir: str | None = None) -> None:
        self._spill_dir = spill_dir
        """Where the full-output log goes (a sandbox's scratch folder, which its commands
        see at the same path); None: the system temp dir."""
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self.total_bytes = 0
        self.full_output_path: str | None = None
        self._file: BinaryIO | None = None
        self._redactor: StreamRedactor | None = None

    async def add(self, chunk: bytes) -> None:
        """Record one chunk (spilling to the temp file past 50 KB)."""
        self.total_bytes += len(chunk)
        if self.total_bytes > DEFAULT_MAX_BYTES and self._file is None:
            await self._open_spill()
        if self._file is not None and self._redactor is not None:
            await asyncio.to_thread(self._file.write, self._redactor.feed(chunk))
        self._chunks.append(chunk)
        self._buffered += len(chunk)
        while self._buffered > ROLLING_BUFFER_BYTES and len(self._chunks) > 1:
            self._buffered -= len(self._chunks.popleft())

    async def _open_spill(self) -> None:
        self.full_output_path = temp_output_path(self._spill_dir)
        # 0600 and O_EXCL: the temp dir is shared, the output is the user's.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        fd = await asyncio.to_thread(open_private, Path(self.full_output_path), flags)
        self._file = file = await asyncio.to_thread(open, fd, "wb")
        self._redactor = redactor = spill_redactor()
        for old in self._chunks:
            await asyncio.to_thread(file.write, redactor.feed(old))

    async def close(self, *, ensure_file: bool = False) -> None:
        """Close the spill file; with ``ensure_file`` write one from the buffer if none exists.

        pi prints ``Full output: undefined`` when output is cut by lines while under
        50 KB; writing the (complete) buffer out gives the model a real path instead.
        """
        if ensure_file and self._file is None and self.total_bytes == self._buffered:
            await self._open_spill()
        if self._file is not None:
            if self._redactor is not None:
                await asyncio.to_thread(self._file.write, self._redactor.finish())
            await asyncio.to_thread(self._file.close)
            self._file = None

    def text(self) -> str:
        """The retained buffer as text (invalid UTF-8 replaced)."""
        return b"".join(self._chunks).decode("utf-8", "replace")

    def tail(self) -> TruncationResult:
        """The retained buffer tail-truncated to pi's limits."""
        return truncate_tail(self.text())


def final_text(trunc: TruncationResult, full_text: str, path: str | None) -> str:
    """The model-facing output with pi's truncation notice (``(no output)`` when empty)."""
    output = trunc.content or "(no output)"
    if not trunc.truncated:
        return output
    start = trunc.total_lines - trunc.output_lines + 1
    end = trunc.total_lines
    if trunc.last_line_partial:
        last_size = format_size(len(full_text.split("\n")[-1].encode("utf-8", "replace")))
        notice = (
            f"[Showing last {format_size(trunc.output_bytes)} of line {end} "
            f"(line is {last_size}). Full output: {path}]"
        )
    elif trunc.truncated_by == "lines":
        notice = f"[Showing lines {start}-{end} of {trunc.total_lines}. Full output: {path}]"
    else:
        notice = (
            f"[Showing lines {start}-{end} of {trunc.total_lines} "
            f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {path}]"
        )
    return f"{output}\n\n{notice}"
