"""Reading the shadow store's git index in-process, where that answers without a git.

Two facts come straight from the file: how many entries it has (its header) and the
paths it lists, in git's order. Right after a snapshot (under the store's lock) the
index is exactly the snapshot's tree, so a session's first checkpoint can name the
files it holds without a ``git diff-tree`` from the empty tree (a process start, and on
a large project a megabyte of output to parse). Formats 2 and 3 are read (what git and
:mod:`.index_writer` write here); anything else answers None and the caller asks git.
"""

from __future__ import annotations

import os
import struct

_HEADER = struct.Struct(">4sII")
_ENTRY_FIXED = 62
"""ctime, mtime, dev, ino, mode, uid, gid, size (10 × 4 bytes), the object id (20), the
flags (2): what precedes an entry's path."""
_MODE_AT = 24
_GITLINK = 0o160000
"""A nested repository's entry (``git add -A`` may make one): no file of the snapshot,
left out as ``git diff-tree``'s readers leave it out (:func:`.trees.parse_raw_diff`)."""
_EXTENDED = 0x4000
_NAME_MASK = 0xFFF


def index_entry_count(index_path: str) -> int:
    """Entries in a git index file (its header), 0 when there is none. Blocking."""
    try:
        with open(index_path, "rb") as handle:
            header = handle.read(12)
    except OSError:
        return 0
    if len(header) < 12 or header[:4] != b"DIRC":
        return 0
    return int(struct.unpack(">I", header[8:12])[0])


def index_stamp(index_path: str) -> list[int] | None:
    """What tells one version of the index file from another (git replaces it by a
    rename: a new inode, size and times), None when there is none. Blocking."""
    try:
        info = os.stat(index_path)
    except OSError:
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def index_paths(index_path: str) -> list[str] | None:
    """Every file the index lists, in git's order (None: missing, or a format this does
    not read). Blocking."""
    try:
        with open(index_path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if len(data) < _HEADER.size:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    paths: list[str] = []
    pos = _HEADER.size
    try:
        for _ in range(count):
            (flags,) = struct.unpack_from(">H", data, pos + _ENTRY_FIXED - 2)
            start = pos + _ENTRY_FIXED + (2 if flags & _EXTENDED else 0)
            end = data.index(b"\0", start)
            if flags & _NAME_MASK != _NAME_MASK and end - start != flags & _NAME_MASK:
                return None  # not the layout this reader knows
            (mode,) = struct.unpack_from(">I", data, pos + _MODE_AT)
            if mode != _GITLINK:
                paths.append(data[start:end].decode("utf-8", "surrogateescape"))
            # Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
            pos += (end - pos + 8) & ~7
    except (struct.error, ValueError):
        return None
    return paths
