"""Entry lines read again from their session file instead of kept in memory.

An entry read from a file keeps its line (the exact bytes: export and fork copy them, the
tree, the context report and the compaction decode them in part). An entry on the current
path is also typed (the model the agent sends): a resumed 10,000-message session holds
~10 MB of lines beside the same data as models. A long-lived process (the TUI) lets the
typed entries give their lines up (:meth:`EntryTable.release_typed_lines
<pitui.core.session.table.EntryTable.release_typed_lines>`) and reads a line again when
asked: one ``pread`` of a few hundred bytes from a file that was just read (the page
cache), next to the parse that follows it.

The file stays open, so a file replaced by a rename (pitui's rewrites) still reads as it
was. A line that no longer reads back the same (another program rewrote the file in
place: its length or CRC differ) is rebuilt from the typed entry instead: that is why
only typed entries give their lines up in a long-lived process.

A one-shot reader of a large file (``pitui session context``) gives up, before it
validates the context, the lines it will read at most a sample of (what a compaction
replaced: ~70 MB of a 100k-entry file's lines). Their places come from the sizes loading
measured (:meth:`LineSource.from_sizes`: no pass over the file, no CRC of 70 MB), and a
line read again must hold its entry's id, else it counts as changed.
"""

from __future__ import annotations

import itertools
import operator
import os
import weakref
import zlib
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

_CHUNK = 1 << 12
_SKIPS = 8
"""Lines that are not entries (the header, a bad line) skipped before giving up: a line
that is not found is not looked for in the whole file."""


class _EntryId(msgspec.Struct):
    """The one field of an entry line a line placed by its size is checked by."""

    id: Any = None


_decode_id = msgspec.json.Decoder(_EntryId).decode


class LineSource:
    """Where each located line of a table is in its file (offset, length, CRC-32)."""

    __slots__ = ("__weakref__", "_closer", "_crcs", "_fd", "_lengths", "_offsets")

    def __init__(self, fd: int, count: int) -> None:
        self._fd = fd
        self._offsets = array("q", [-1]) * count
        self._lengths = array("I", [0]) * count
        self._crcs: array[int] | None = array("I", [0]) * count
        """Each located line's CRC-32 (None: placed by size, checked by its entry id)."""
        self._closer = weakref.finalize(self, os.close, fd)

    @classmethod
    def from_sizes(cls, path: Path, origin: int, sizes: array[int]) -> LineSource | None:
        """Open ``path``, whose entry lines start at byte ``origin`` and follow each other
        with these sizes (one newline between: a file loading found sound); None when it
        cannot be opened. A line read again is checked by its entry's id."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        source = cls(fd, 0)
        # Offsets in C: origin + the sizes before + one newline each.
        starts = itertools.accumulate(sizes, initial=origin)
        source._offsets = array("q", map(operator.add, starts, range(len(sizes))))
        source._lengths, source._crcs = sizes, None
        return source

    @property
    def sized(self) -> bool:
        """Whether lines were placed by their sizes (:meth:`from_sizes`)."""
        return self._crcs is None

    @classmethod
    def locate(cls, path: Path, raws: Sequence[Any]) -> LineSource | None:
        """Open ``path`` and find the lines of ``raws`` (those that are bytes, in file
        order) in it; None when it cannot be opened. Lines not found stay unlocated."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        source = cls(fd, len(raws))
        try:
            source._find(raws)
        except OSError:
            source.close()
            return None
        return source

    def _find(self, raws: Sequence[Any]) -> None:
        fd, cursor = self._fd, 0
        offsets, lengths, crcs = self._offsets, self._lengths, self._crcs
        assert crcs is not None
        for position, raw in enumerate(raws):
            if raw.__class__ is not bytes or not raw:
                continue
            size = len(raw)
            for _ in range(_SKIPS):
                got = os.pread(fd, size + 1, cursor)
                if memoryview(got)[:size] == raw and got[size:] in (b"\n", b""):
                    offsets[position], lengths[position] = cursor, size
                    crcs[position] = zlib.crc32(raw)
                    cursor += size + 1
                    break
                # Not this line (the header, a line that was not an entry): the next one.
                cursor = self._after_newline(cursor)
                if cursor < 0:
                    return
            else:
                return  # not in the file as read: this line and the rest stay in memory

    def _after_newline(self, cursor: int) -> int:
        """The offset after the next newline at or after ``cursor`` (-1: none)."""
        while chunk := os.pread(self._fd, _CHUNK, cursor):
            found = chunk.find(b"\n")
            if found >= 0:
                return cursor + found + 1
            cursor += len(chunk)
        return -1

    def located(self, position: int) -> bool:
        """Whether the line of ``position`` was found in the file."""
        return position < len(self._offsets) and self._offsets[position] >= 0

    def read(self, position: int, entry_id: str | None = None) -> bytes | None:
        """The line of ``position`` (the entry ``entry_id``'s) as it was read first
        (None: not located, the file is closed, or it changed)."""
        if not self.located(position) or not self._closer.alive:
            return None
        size = self._lengths[position]
        try:
            got = os.pread(self._fd, size, self._offsets[position])
        except OSError:
            return None
        if len(got) != size:
            return None
        crcs = self._crcs
        if crcs is None:
            return got if _holds_id(got, entry_id) else None
        return got if zlib.crc32(got) == crcs[position] else None

    def close(self) -> None:
        """Close the file (lines given up are rebuilt from their entries after this)."""
        self._closer()


def _holds_id(line: bytes, entry_id: str | None) -> bool:
    """Whether ``line`` is an entry line with this id (decoded without the rest)."""
    try:
        return entry_id is not None and _decode_id(line).id == entry_id
    except (msgspec.DecodeError, RecursionError):
        return False
