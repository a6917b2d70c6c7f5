"""Taking a snapshot of the project's working tree into its shadow store.

One ``git ls-files -m -o`` (the stat cache and the untracked cache make it a few
milliseconds on a large, unchanged tree) says what changed since the last snapshot. When
nothing did, the tree is the one ``write-tree`` gave for this very index file (noted in
the store's state with the file's inode, size and times: no second git process), else
``write-tree`` answers from the cache tree. Otherwise the changed files are
checked for size first (an over-size file is never hashed: it goes into the store's
exclude file and out of its index), the file count is checked against the limit, and
the rest are stored: many at once as one pack written by :mod:`.pack_writer` (and, for
the first checkpoint, the index by :mod:`.index_writer`), then ``git update-index``
records exactly the listed paths with their stat data (no second walk of the tree, which
``git add -A`` would make), and ``write-tree``. When
``update-index`` refuses a path (an unreadable file, a file turned folder), ``git add -A
--ignore-errors`` does the whole job instead.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, NamedTuple

from pitui.core.checkpoints.errors import CheckpointError, TooManyFiles
from pitui.core.checkpoints.index_reader import index_entry_count, index_stamp
from pitui.core.checkpoints.store import ShadowStore, finish_blocking
from pitui.core.checkpoints.trees import encode_path


class Snapshot(NamedTuple):
    """The project's files at one moment, as a tree in the shadow store."""

    tree: str
    newly_skipped: list[str]
    """Files over the size limit seen for the first time (to say so once)."""


BULK_FILES = 64
"""From this many changed files on, contents go into one pack instead of a loose object
(a file, an inode) each: the first checkpoint of a large project."""


def _split_z(raw: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0") if part]


def _sizes(root: str, relative: list[str]) -> dict[str, int]:
    """Size of each existing regular file (symlinks and missing files: absent). Blocking."""
    sizes: dict[str, int] = {}
    for path in relative:
        try:
            info = os.lstat(os.path.join(root, path))
        except OSError:
            continue
        if not os.path.islink(os.path.join(root, path)):
            sizes[path] = info.st_size
    return sizes


def _measure(store: ShadowStore, changed: list[str]) -> tuple[int, dict[str, int]]:
    """(entries in the store's index, the size of each changed file). Blocking."""
    return index_entry_count(str(store.git_dir / "index")), _sizes(str(store.cwd), changed)


def _prepare(store: ShadowStore) -> tuple[dict[str, Any], list[str], str | None]:
    """(the store's state, the files still over the size limit, the tree of the index
    as it is if noted), with the exclude file written to match. Blocking."""
    state = store.read_state()
    oversize: list[str] = list(state.get("oversize", []))
    if oversize:  # a file that shrank below the limit is snapshotted again
        sizes = _sizes(str(store.cwd), oversize)
        oversize = [p for p in oversize if sizes.get(p, 0) > store.limits.max_file_bytes]
    store.write_excludes(oversize)
    return state, oversize, _noted_tree(store, state)


def _noted_tree(store: ShadowStore, state: dict[str, Any]) -> str | None:
    """The tree ``write-tree`` gave for the index file as it is now, if noted. Blocking."""
    noted = state.get("indexTree")
    if not isinstance(noted, dict) or not isinstance(noted.get("tree"), str):
        return None
    stamp = index_stamp(str(store.git_dir / "index"))
    return str(noted["tree"]) if stamp is not None and noted.get("index") == stamp else None


def _note_tree(store: ShadowStore, state: dict[str, Any], tree: str) -> None:
    """Note ``tree`` as the index file's (see :func:`_noted_tree`). Blocking."""
    state["indexTree"] = {"index": index_stamp(str(store.git_dir / "index")), "tree": tree}
    store.write_state(state)


async def take_snapshot(store: ShadowStore) -> Snapshot:
    """Snapshot the work tree (call with the store locked).

    Raises:
        TooManyFiles: the project is over the file limit.
        CheckpointError: git failed.
    """
    git, limits = store.git, store.limits
    state, oversize, noted = await finish_blocking(_prepare, store)
    listing = await git.out("ls-files", "-z", "-m", "-o", "--exclude-standard")
    changed = sorted(set(_split_z(listing)))
    newly: list[str] = []
    if not changed and noted is not None and oversize == state.get("oversize", []):
        # ls-files does not write the index: it is still that tree.
        return Snapshot(tree=noted, newly_skipped=[])
    if changed:
        indexed, sizes = await finish_blocking(_measure, store, changed)
        if indexed + len(changed) > limits.max_files:
            await _recount(store)
        big = sorted(p for p, size in sizes.items() if size > limits.max_file_bytes)
        if big:
            newly = [p for p in big if p not in set(oversize)]
            oversize = sorted(set(oversize) | set(big))
            await finish_blocking(store.write_excludes, oversize)
            stdin = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in big)
            await git.run("update-index", "-z", "--force-remove", "--stdin", stdin=stdin)
        await _store_files(store, [p for p in changed if p not in set(big)])
    state["oversize"] = oversize
    tree = (await git.out("write-tree")).decode().strip()
    await finish_blocking(_note_tree, store, state, tree)
    return Snapshot(tree=tree, newly_skipped=newly)


async def _store_files(store: ShadowStore, changed: list[str]) -> None:
    """Put the changed (added, modified, deleted) paths into the store and its index."""
    # A nested repository is listed as "dir/": it is never snapshotted.
    files = [path for path in changed if not path.endswith("/")]
    if len(files) < BULK_FILES:
        await _index_or_add(store, files)
        return
    # Imported here: most snapshots change a few files and never pack.
    from pitui.core.checkpoints.index_writer import write_fresh_index
    from pitui.core.checkpoints.pack_writer import write_pack, write_tree_pack

    pack_dir, index = store.git_dir / "objects" / "pack", store.git_dir / "index"
    limit = store.limits.max_file_bytes
    packed = await asyncio.to_thread(write_pack, pack_dir, store.cwd, files, limit)
    if packed.files and not await asyncio.to_thread(index.exists):  # the first checkpoint
        await asyncio.to_thread(write_fresh_index, index, packed.files)
        rest = [path for path in files if path not in packed.files]  # symlinks…
        staged = await _staged(store) if await update_index(store, rest) else None
        if staged is not None:  # git read pitui's index (and checked its checksum)
            await asyncio.to_thread(write_tree_pack, pack_dir, staged)
            return
        await asyncio.to_thread(index.unlink, True)  # refused: git builds it itself
    await _index_or_add(store, files)
    staged = await store.git.out("ls-files", "-s", "-z")
    # Their folders' trees too: write-tree then writes no loose object.
    await asyncio.to_thread(write_tree_pack, pack_dir, staged)


async def _index_or_add(store: ShadowStore, files: list[str]) -> None:
    if await update_index(store, files):
        return
    added = await store.git.run("add", "-A", "--ignore-errors", check=False)
    if added.code != 0 and b"fatal:" in added.stderr:  # unreadable files only warn
        raise CheckpointError(f"git add failed: {added.text()}")


async def _staged(store: ShadowStore) -> bytes | None:
    """``git ls-files -s -z`` (None: git could not read the index)."""
    listed = await store.git.run("ls-files", "-s", "-z", check=False)
    return listed.stdout if listed.code == 0 else None


async def update_index(store: ShadowStore, paths: list[str]) -> bool:
    """Record ``paths`` as they are on disk now (missing ones leave the index); False
    when git refused one of them (nothing is recorded then)."""
    if not paths:
        return True
    stdin = b"".join(encode_path(path) + b"\0" for path in paths)
    result = await store.git.run(
        "update-index", "--add", "--remove", "--replace", "-z", "--stdin",
        stdin=stdin, check=False,
    )  # fmt: skip
    return result.code == 0


async def _recount(store: ShadowStore) -> None:
    """Raise :class:`TooManyFiles` if the project really holds more files than allowed.

    The quick estimate (index entries + changed files) counts a modified file twice; the
    exact count is the index's entries plus the untracked files.
    """
    untracked = await store.git.out("ls-files", "-z", "-o", "--exclude-standard")
    count = index_entry_count(str(store.git_dir / "index")) + untracked.count(b"\0")
    if count > store.limits.max_files:
        raise TooManyFiles(
            f"{count:,} files in {store.cwd} (more than checkpoints.maxFiles, "
            f"{store.limits.max_files:,}): checkpoints are off for this project"
        )
