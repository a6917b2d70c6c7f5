"""A cache of session-listing rows, so a warm ``pitui session ls`` only stats files.

Session files are append-only: a file whose size and mtime are unchanged has the same
listing row. Rows are kept in ``<pitui home>/cache/session-list.json``, written
atomically; a missing, unreadable or outdated cache is simply rebuilt.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pitui.private_files import prepare_parent

_FORMAT = 1
MISS: Any = object()
"""Returned by :meth:`ListCache.get` when the cache has no valid row."""


class ListCache:
    """Rows by file path, each valid for one (size, mtime_ns)."""

    def __init__(self, path: Path, rows: dict[str, list[Any]]) -> None:
        self.path = path
        self._rows = rows
        self._seen: set[str] = set()
        self._dirty = False

    @classmethod
    def load(cls, path: Path) -> ListCache:
        """The cache at ``path`` (empty when missing or unreadable)."""
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return cls(path, {})
        rows = (
            data.get("rows") if isinstance(data, dict) and data.get("format") == _FORMAT else None
        )
        return cls(path, rows if isinstance(rows, dict) else {})

    def get(self, file: str, size: int, mtime_ns: int) -> Any:
        """The cached row (a list, or None for a file that is not a session) or :data:`MISS`."""
        self._seen.add(file)
        found = self._rows.get(file)
        if isinstance(found, list) and len(found) == 3 and found[:2] == [size, mtime_ns]:
            return found[2]
        return MISS

    def put(self, file: str, size: int, mtime_ns: int, row: list[Any] | None) -> None:
        """Remember the row of a file in this state."""
        self._rows[file] = [size, mtime_ns, row]
        self._dirty = True

    def save(self, scanned: set[str]) -> None:
        """Write the cache (dropping rows of vanished files in the scanned directories)."""
        gone = [f for f in self._rows if f not in self._seen and os.path.dirname(f) in scanned]
        for file in gone:
            del self._rows[file]
        if not (self._dirty or gone):
            return
        payload = json.dumps({"format": _FORMAT, "rows": self._rows}, ensure_ascii=False)
        try:
            prepare_parent(self.path)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
            os.replace(temp, self.path)
        except OSError:
            return  # a cache that cannot be written only costs speed next time
