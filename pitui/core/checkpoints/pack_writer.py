"""Storing many new files at once: one pack (and its index) written by pitui itself.

The first checkpoint of a large project hashes and compresses every file. git's own ways
of doing that are slow here: loose objects cost a file (an inode) each, and ``git add``
with ``core.bigFileThreshold`` (its "bulk check-in") hashes every byte four times (the
object, the pack as it is written, and twice more when it fixes the pack's header up) and
re-allocates zlib's state for every file. This module writes a standard version-2 pack and
``.idx`` in one pass: each file is read once, hashed once and deflated once, on two threads
(``hashlib`` and ``zlib`` release the GIL). The first checkpoint's index is then written
from the same reads (:mod:`.index_writer`); later ones let ``git update-index`` record
the files, which hashes them again and finds every object stored, so it writes none.
Object ids here are plain SHA-1 (git's own hashing also detects crafted collisions): a
project shipping a colliding pair could at worst have one of its own two files restored
as the other, so nothing outside what it already controls.

Only regular files are packed (opened without following symlinks, never blocking on a
FIFO); anything else, or a file that cannot be read, is left to git.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import struct
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_OBJ_TREE = 2
_OBJ_BLOB = 3
_TYPE_NAMES = {_OBJ_TREE: b"tree", _OBJ_BLOB: b"blob"}
_BATCH = 256
"""Files in flight at once (bounds memory: their compressed contents)."""
_READ = 1 << 20
COMPRESSION = 1
"""zlib level: the store favours speed (git's ``core.looseCompression=1`` too)."""


@dataclass(frozen=True, slots=True)
class _Packed:
    oid: bytes
    record: bytes
    """The pack's bytes for the object: its type-and-size header and deflated content."""
    info: os.stat_result | None = None
    """A file's stat data, taken before it was read (for the index)."""


@dataclass(frozen=True, slots=True)
class PackedFiles:
    """What :func:`write_pack` stored."""

    objects: int
    """Objects in the pack (files with the same content share one)."""
    files: dict[str, tuple[bytes, os.stat_result]]
    """Each file packed: its object id and its stat data from before it was read."""


def _object_header(kind: int, size: int) -> bytes:
    """A pack entry's header: type and size, 4 bits then 7 bits a byte, low bits first."""
    out = bytearray([(kind << 4) | (size & 0x0F)])
    size >>= 4
    while size:
        out[-1] |= 0x80
        out.append(size & 0x7F)
        size >>= 7
    return bytes(out)


def _read_regular(full: str, limit: int) -> tuple[bytes, os.stat_result] | None:
    """The content of a regular file of at most ``limit`` bytes and its stat data (taken
    first: a change while it is read then shows as a different stat), else None."""
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks = []
        while chunk := os.read(fd, _READ):
            chunks.append(chunk)
        return b"".join(chunks), info
    except OSError:
        return None
    finally:
        os.close(fd)


def _pack_one(full: str, limit: int) -> _Packed | None:
    found = _read_regular(full, limit)
    if found is None:
        return None
    packed = _packed(_OBJ_BLOB, found[0])
    return _Packed(packed.oid, packed.record, found[1])


def _batches(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), _BATCH):
        yield items[start : start + _BATCH]


def _index_bytes(entries: dict[bytes, tuple[int, int]], pack_hash: bytes) -> bytes:
    """The version-2 ``.idx`` of a pack: ``entries`` maps object id → (offset, crc32)."""
    ids = sorted(entries)
    counts = [0] * 256
    for oid in ids:
        counts[oid[0]] += 1
    fanout, total = [], 0
    for count in counts:
        total += count
        fanout.append(total)
    small: list[int] = []
    large: list[int] = []
    for oid in ids:
        offset = entries[oid][0]
        if offset < 0x80000000:
            small.append(offset)
        else:
            small.append(0x80000000 | len(large))
            large.append(offset)
    body = b"".join(
        (
            b"\377tOc",
            struct.pack(">I", 2),
            struct.pack(">256I", *fanout),
            *ids,
            struct.pack(f">{len(ids)}I", *(entries[oid][1] for oid in ids)),
            struct.pack(f">{len(ids)}I", *small),
            struct.pack(f">{len(large)}Q", *large),
            pack_hash,
        )
    )
    return body + hashlib.sha1(body, usedforsecurity=False).digest()


def _hash_file(path: str) -> bytes:
    digest = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb") as handle:
        while chunk := handle.read(_READ):
            digest.update(chunk)
    return digest.digest()


def _write_body(
    packed_files: Iterable[_Packed | None], out: int, entries: dict[bytes, tuple[int, int]]
) -> None:
    """Append the new objects to the pack file ``out``, noting their offsets and CRCs."""
    offset = os.lseek(out, 0, os.SEEK_CUR)
    for packed in packed_files:
        if packed is None or packed.oid in entries:
            continue
        entries[packed.oid] = (offset, zlib.crc32(packed.record))
        view = memoryview(packed.record)
        while view:
            view = view[os.write(out, view) :]
        offset += len(packed.record)


def write_pack(pack_dir: Path, root: Path, relative: list[str], limit: int) -> PackedFiles:
    """Store the regular files ``relative`` (to ``root``) as one pack in ``pack_dir``.

    Blocking: call it in a thread. On any error the partial pack is removed and the
    error raised.
    """
    base = str(root)
    files: dict[str, tuple[bytes, os.stat_result]] = {}

    def noting(batch: list[str], results: Iterable[_Packed | None]) -> Iterator[_Packed | None]:
        for path, packed in zip(batch, results, strict=True):
            if packed is not None and packed.info is not None:
                files[path] = (packed.oid, packed.info)
            yield packed

    def produce() -> Iterator[Iterable[_Packed | None]]:
        with ThreadPoolExecutor(2, thread_name_prefix="pitui-pack") as pool:
            for batch in _batches(relative):
                fulls = [os.path.join(base, path) for path in batch]
                yield noting(batch, pool.map(_pack_one, fulls, [limit] * len(fulls)))

    objects = _write_pack_file(pack_dir, produce())
    return PackedFiles(objects, files)


def write_tree_pack(pack_dir: Path, staged: bytes) -> int:
    """Store, as one pack, every tree of the index listed by ``git ls-files -s -z``
    (``staged``), so that ``git write-tree`` finds them all instead of writing each as a
    loose object. Blocking. Returns the number of trees."""
    return _write_pack_file(pack_dir, [list(_trees(staged))])


_DIR = object()


def _trees(staged: bytes) -> Iterator[_Packed]:
    """The tree objects of an index listing, deepest first (each folder's id is known
    before its parent's)."""
    root: dict[bytes, Any] = {}
    for record in staged.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, oid, stage = meta.split(b" ")
        if stage != b"0":
            continue
        *folders, name = path.split(b"/")
        node = root
        for folder in folders:
            node = node.setdefault(folder, {})
        node[name] = (mode, bytes.fromhex(oid.decode()))
    yield from _tree_objects(root)


def _tree_objects(node: dict[bytes, Any]) -> Iterator[_Packed]:
    """Pack the tree ``node`` (name → (mode, id) or a sub-folder's dict) and its folders;
    the last one yielded is ``node``'s own tree."""
    rows: list[tuple[bytes, bytes, bytes]] = []
    for name, value in node.items():
        if isinstance(value, dict):
            sub = None
            for sub in _tree_objects(value):
                yield sub
            assert sub is not None
            rows.append((name + b"/", b"40000", sub.oid))
        else:
            rows.append((name, value[0], value[1]))
    rows.sort()  # git orders a folder as if its name ended with "/"
    body = b"".join(b"%s %s\0%s" % (mode, name.rstrip(b"/"), oid) for name, mode, oid in rows)
    yield _packed(_OBJ_TREE, body)


def _packed(kind: int, data: bytes) -> _Packed:
    header = b"%s %d\0" % (_TYPE_NAMES[kind], len(data))
    oid = hashlib.sha1(header + data, usedforsecurity=False).digest()
    deflated = _deflate_small(data) if kind == _OBJ_TREE else zlib.compress(data, COMPRESSION)
    return _Packed(oid, _object_header(kind, len(data)) + deflated)


def _deflate_small(data: bytes) -> bytes:
    """zlib's stream of a small object (a tree): a window no larger than the object and
    a small hash table, so that zlib does not set up (and the kernel fault in) ~260 KB
    of state for each of hundreds of trees. (For files it is no faster.)"""
    window = min(15, max(9, (len(data) - 1).bit_length()))  # zlib: 2^9 to 2^15 bytes
    compressor = zlib.compressobj(COMPRESSION, zlib.DEFLATED, window, 4)
    return compressor.compress(data) + compressor.flush()


def _write_pack_file(pack_dir: Path, batches: Iterable[Iterable[_Packed | None]]) -> int:
    temp = pack_dir / f"tmp_pitui_{os.getpid()}_{secrets.token_hex(4)}.pack"
    index_temp = temp.with_suffix(".idx")
    entries: dict[bytes, tuple[int, int]] = {}
    fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.lseek(fd, 12, os.SEEK_SET)
        for batch in batches:
            _write_body(batch, fd, entries)
        os.pwrite(fd, b"PACK" + struct.pack(">II", 2, len(entries)), 0)
        os.close(fd)
        fd = -1
        if not entries:
            os.unlink(temp)
            return 0
        pack_hash = _hash_file(str(temp))
        with open(temp, "ab") as handle:
            handle.write(pack_hash)
        name = pack_dir / f"pack-{pack_hash.hex()}"
        index_temp.write_bytes(_index_bytes(entries, pack_hash))
        os.chmod(temp, 0o400)
        os.chmod(index_temp, 0o400)
        os.replace(temp, name.with_suffix(".pack"))  # the pack first: git looks for .idx
        os.replace(index_temp, name.with_suffix(".idx"))
    except BaseException:
        if fd >= 0:
            os.close(fd)
        for leftover in (temp, index_temp):
            with suppress(OSError):
                os.unlink(leftover)
        raise
    return len(entries)
