"""``<home>/mcp.log``: what servers log (``notifications/message``) and print on stderr.

One line per message, ``<time> [<server>] <level> <logger>: <message>`` as pi writes
it, continuation lines indented. Several pitui processes may share the file, so every
line is one append; past 5 MB the file moves to ``mcp.log.1``. Writing is best effort:
a full disk must never break a tool call. Lines are small and appends are buffered by
the OS, so they are written on the event loop (as logging does).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

MAX_LOG_BYTES = 5 * 1024 * 1024


def format_line(server: str, level: str, logger: str | None, data: object) -> str:
    """One log line (with its newline)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    text = text.replace("\r\n", "\n").replace("\n", "\n    ")
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    where = f" {logger}:" if logger else ""
    return f"{stamp} [{server}] {level}{where} {text}\n"


class McpLog:
    """Appends server messages to one file, rotating it at :data:`MAX_LOG_BYTES`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._size: int | None = None

    def write(self, server: str, level: str, logger: str | None, data: object) -> None:
        line = format_line(server, level, logger, data).encode("utf-8", "replace")
        try:
            if self._size is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._size = self._current_size()
            if self._size > MAX_LOG_BYTES:
                # Another process may have rotated it already: look again first.
                if self._current_size() > MAX_LOG_BYTES:
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                self._size = self._current_size()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            self._size += len(line)
        except OSError:
            pass  # best effort: logging must not break tools

    def _current_size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0
