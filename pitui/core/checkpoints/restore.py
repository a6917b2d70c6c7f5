"""Putting a checkpoint's files back into the project, one atomic replacement at a time.

The caller has already taken (and recorded) the pre-restore checkpoint, so whatever this
overwrites can be brought back. Each file is written to a temporary file beside it and
renamed over the old one, so a kill at any moment leaves every file either old or new;
the temporary names are journalled first (and excluded from snapshots), so leftovers of
a killed restore are removed by the next checkpoint. Only paths whose folder resolves
inside the project are touched (symlinks resolved, as for the ``write`` tool); files the
project ignores now, and files over the size limit, are never touched.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from contextlib import suppress
from dataclasses import dataclass, field

from pitui.core.checkpoints.store import ShadowStore
from pitui.core.checkpoints.trees import (
    SYMLINK_MODE,
    Change,
    diff_trees,
    encode_path,
    read_blobs,
)
from pitui.core.tools.path_utils import is_within

_BATCH_BLOBS = 256
"""Contents read from the store at once (bounds memory on a large restore)."""


@dataclass(slots=True)
class RestoreOutcome:
    """What a restore did."""

    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, why) for every change left alone."""


async def _ignored(store: ShadowStore, paths: list[str]) -> set[str]:
    """Which of ``paths`` the project's ignore rules (and the store's excludes) cover."""
    if not paths:
        return set()
    stdin = b"".join(encode_path(p) + b"\0" for p in paths)
    result = await store.git.run(
        "check-ignore", "-z", "--no-index", "--stdin", stdin=stdin, check=False
    )
    return {part.decode("utf-8", "surrogateescape") for part in result.stdout.split(b"\0") if part}


def _refusal(root: str, path: str, limit: int) -> str | None:
    """Why ``path`` must not be touched, or None. Blocking."""
    full = os.path.join(root, path)
    if not is_within(os.path.dirname(full), root):
        return "outside the project (a symlinked folder)"
    try:
        info = os.lstat(full)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode) and info.st_size > limit:
        return "over the size limit"
    return None


async def restore_tree(store: ShadowStore, current: str, target: str) -> RestoreOutcome:
    """Make the project's files those of ``target``, given that they are ``current`` now.

    Call with the store locked, after the pre-restore checkpoint ``current`` is recorded.
    """
    outcome = RestoreOutcome()
    changes = await diff_trees(store.git, current, target)
    ignored = await _ignored(store, [c.path for c in changes if c.kind != "deleted"])
    root = str(store.cwd)
    plan: list[Change] = []
    limit = store.limits.max_file_bytes
    refusals = await asyncio.to_thread(
        lambda: {c.path: _refusal(root, c.path, limit) for c in changes}
    )
    for change in changes:
        why = refusals[change.path]
        if why is None and change.path in ignored:
            why = "ignored by the project"
        if why is not None:
            outcome.skipped.append((change.path, why))
            continue
        plan.append(change)
    deletions = [c for c in plan if c.kind == "deleted"]
    writes = [c for c in plan if c.kind != "deleted"]
    temps = {c.path: _temp_name(root, c.path, i) for i, c in enumerate(writes)}
    await asyncio.to_thread(_write_journal, store, list(temps.values()))
    await asyncio.to_thread(_delete_all, root, deletions, outcome)
    for start in range(0, len(writes), _BATCH_BLOBS):
        batch = writes[start : start + _BATCH_BLOBS]
        blobs = await read_blobs(store.git, [c.new_blob for c in batch])
        await asyncio.to_thread(_write_all, root, batch, blobs, temps, outcome)
    await asyncio.to_thread(store.clean_leftovers)
    return outcome


def _temp_name(root: str, path: str, index: int) -> str:
    folder, name = os.path.split(os.path.join(root, path))
    return os.path.join(folder, f".{name[:60]}.pitui-restore-{os.getpid()}-{index}")


def _write_journal(store: ShadowStore, temps: list[str]) -> None:
    journal = store.journal_path
    fd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(temps, handle)
        handle.flush()
        os.fsync(handle.fileno())


def _delete_all(root: str, deletions: list[Change], outcome: RestoreOutcome) -> None:
    folders: set[str] = set()
    for change in deletions:
        full = os.path.join(root, change.path)
        try:
            os.unlink(full)
        except FileNotFoundError:
            pass
        except OSError as exc:
            outcome.skipped.append((change.path, exc.strerror or "cannot delete"))
            continue
        outcome.deleted.append(change.path)
        folders.add(os.path.dirname(full))
    # Folders left empty go too (as git does), deepest first, never the project itself.
    for folder in sorted(folders, key=len, reverse=True):
        while folder != root and folder.startswith(root + os.sep):
            try:
                os.rmdir(folder)
            except OSError:
                break
            folder = os.path.dirname(folder)


def _write_all(
    root: str,
    batch: list[Change],
    blobs: dict[str, bytes],
    temps: dict[str, str],
    outcome: RestoreOutcome,
) -> None:
    for change in batch:
        full = os.path.join(root, change.path)
        try:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            _replace(full, temps[change.path], change.new_mode, blobs[change.new_blob])
        except OSError as exc:
            outcome.skipped.append((change.path, exc.strerror or "cannot write"))
            continue
        outcome.written.append(change.path)


def _replace(full: str, temp: str, mode: str, content: bytes) -> None:
    """Write ``content`` beside ``full`` and rename it over ``full`` (atomic)."""
    with suppress(FileNotFoundError):
        os.unlink(temp)
    if mode == SYMLINK_MODE:
        os.symlink(os.fsdecode(content), temp)
    else:
        permissions = 0o777 if mode == "100755" else 0o666  # the umask applies
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, permissions)
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    try:
        os.replace(temp, full)
    except OSError:
        with suppress(OSError):
            os.unlink(temp)
        raise
