"""Reading what the shadow store holds: tree differences and file contents.

Paths are the store's (relative to the project, ``/``-separated); bytes that are not
UTF-8 survive as surrogate escapes, so a file with any name is written back to the same
name.
"""

from __future__ import annotations

import asyncio
from typing import Literal, NamedTuple, TypeAlias

from pitui.core.checkpoints.errors import CheckpointError
from pitui.core.checkpoints.git import Git

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's empty tree (SHA-1 stores): the files of a point before any checkpoint."""
ZERO_ID = "0" * 40
ChangeKind: TypeAlias = Literal["added", "deleted", "modified"]
SYMLINK_MODE = "120000"
_PARSE_ASIDE_BYTES = 64 * 1024
"""Outputs longer than this are parsed in a thread, off the event loop."""
GITLINK_MODE = "160000"


class Change(NamedTuple):
    """One path that differs between two trees (``old`` → ``new``)."""

    path: str
    kind: ChangeKind
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def encode_path(path: str) -> bytes:
    """A store path back to the bytes of the file name."""
    return path.encode("utf-8", "surrogateescape")


def parse_raw_diff(raw: bytes) -> list[Change]:
    """``git diff-tree -r -z --raw`` output → changes (gitlinks left out)."""
    parts = raw.split(b"\0")
    changes: list[Change] = []
    i = 0
    while i + 1 < len(parts):
        meta, path = parts[i], parts[i + 1]
        i += 2
        if not meta.startswith(b":"):
            continue
        old_mode, new_mode, old_blob, new_blob, status = meta[1:].decode().split(" ")[:5]
        if GITLINK_MODE in (old_mode, new_mode):
            continue  # a nested repository: never snapshotted, never restored
        kind: ChangeKind = {"A": "added", "D": "deleted"}.get(status[:1], "modified")  # type: ignore[assignment]
        changes.append(Change(_decode(path), kind, old_mode, new_mode, old_blob, new_blob))
    return changes


async def diff_trees(git: Git, old: str, new: str) -> list[Change]:
    """What changes from tree ``old`` to tree ``new``."""
    if old == new:
        return []
    raw = await git.out("diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", old, new)
    if len(raw) > _PARSE_ASIDE_BYTES:  # a first checkpoint's 10,000 rows: ~40 ms of parsing
        return await asyncio.to_thread(parse_raw_diff, raw)
    return parse_raw_diff(raw)


async def has_tree(git: Git, tree: str) -> bool:
    """True if the store holds ``tree``."""
    if tree == EMPTY_TREE:
        return True
    result = await git.run("cat-file", "-t", tree, check=False)
    return result.code == 0 and result.stdout.strip() == b"tree"


async def read_blobs(git: Git, blob_ids: list[str]) -> dict[str, bytes]:
    """The contents of ``blob_ids`` (one ``cat-file --batch``)."""
    wanted = sorted(set(blob_ids) - {ZERO_ID})
    if not wanted:
        return {}
    raw = await git.out("cat-file", "--batch", stdin="".join(f"{b}\n" for b in wanted).encode())
    blobs: dict[str, bytes] = {}
    pos = 0
    for blob in wanted:
        end = raw.index(b"\n", pos)
        header = raw[pos:end].split(b" ")
        if len(header) != 3 or header[1] != b"blob":
            raise CheckpointError(f"The checkpoint store lacks file content {blob}")
        size = int(header[2])
        blobs[blob] = raw[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


async def list_tree(git: Git, tree: str) -> dict[str, tuple[str, str]]:
    """Every file of ``tree``: path → (mode, blob)."""
    if tree == EMPTY_TREE:
        return {}
    raw = await git.out("ls-tree", "-r", "-z", "--full-tree", tree)
    files: dict[str, tuple[str, str]] = {}
    for record in raw.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, blob = meta.decode().split(" ")
        if kind == "blob":
            files[_decode(path)] = (mode, blob)
    return files
