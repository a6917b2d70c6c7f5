"""A fresh git index for the first checkpoint, written by pitui from what it packed.

After :mod:`.pack_writer` has read, hashed and stored every file, ``git update-index``
would read and hash all of them again only to note their stat data. When the store has
no index yet, pitui writes it (format version 2) from the stat data taken before each
file was read: git trusts an entry only while the file's stat still matches it, and
re-checks anything changed since (or changed in the same instant as the index was
written: git's "racy" rule), so a file edited meanwhile is never taken for its old
content. git validates the file (its checksum) when it reads it; if it ever refuses it,
the caller removes it and lets git build the index itself.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import struct
from pathlib import Path

from pitui.core.checkpoints.trees import encode_path

_U32 = 0xFFFFFFFF
_NAME_MASK = 0xFFF


def _mode(info: os.stat_result) -> int:
    """git's mode for a regular file: executable or not, nothing else."""
    return 0o100755 if info.st_mode & stat.S_IXUSR else 0o100644


def _entry(name: bytes, oid: bytes, info: os.stat_result) -> bytes:
    fields = struct.pack(
        ">10I",
        (info.st_ctime_ns // 1_000_000_000) & _U32,
        info.st_ctime_ns % 1_000_000_000,
        (info.st_mtime_ns // 1_000_000_000) & _U32,
        info.st_mtime_ns % 1_000_000_000,
        info.st_dev & _U32,
        info.st_ino & _U32,
        _mode(info),
        info.st_uid & _U32,
        info.st_gid & _U32,
        info.st_size & _U32,
    )
    body = fields + oid + struct.pack(">H", min(len(name), _NAME_MASK)) + name
    return body + b"\0" * (8 - len(body) % 8)  # NUL-terminated, padded to 8 bytes


def write_fresh_index(index: Path, files: dict[str, tuple[bytes, os.stat_result]]) -> None:
    """Write ``index`` (which must not exist yet) listing ``files``: path → (object id,
    stat data). Blocking. Atomic: a temporary file renamed into place."""
    entries = sorted((encode_path(path), oid, info) for path, (oid, info) in files.items())
    body = b"".join([b"DIRC", struct.pack(">II", 2, len(entries)), *(_entry(*e) for e in entries)])
    data = body + hashlib.sha1(body, usedforsecurity=False).digest()
    temp = index.with_name(f".index-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, index)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
