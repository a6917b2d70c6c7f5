"""Durable, exclusive writing of one session file.

One writer per file: the writer holds an advisory ``flock`` on the file for as long as it
is open, so a second pitui process is refused instead of interleaving lines. Every append
is written and flushed off the event loop before it returns: in the kernel, so it
survives the process being killed at any later point. Its fsync (the disk, for a machine
crash) runs meanwhile, overlapping the turn (the model's reply, a tool run: ~6 ms each on
a virtual disk, a tenth of a ``pitui -p`` turn when awaited); the next append, a rewrite
and :meth:`SessionWriter.close` wait for it first and report its failure. A full rewrite (migration)
goes to a locked temp file that is fsynced and renamed over the original, so a crash
leaves either the old file or the new one, never a half-written one.

Session files are private: mode 0600 in a 0700 folder (a wider file or folder left by an
older version, or by pi, is tightened when it is opened for writing).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import Any, BinaryIO

from pitui.errors import SessionError
from pitui.private_files import open_private, private_dir


def dumps_line(obj: dict[str, Any]) -> bytes:
    """One JSONL line as pi writes it (compact, UTF-8, trailing newline)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8; escape it the way JSON.stringify does.
        return json.dumps(obj, separators=(",", ":")).encode("ascii") + b"\n"


def _lock(handle: BinaryIO, path: Path) -> None:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionError(
            f"{path} is open for writing in another pitui process; "
            "close it there, or open this session read-only (--read-only).",
            title="Session in use",
        ) from None


def _reason(exc: OSError, path: Path) -> str:
    """``Permission denied`` (naming the path only when it is another one, e.g. a parent)."""
    reason = exc.strerror or str(exc)
    if exc.filename and str(exc.filename) != str(path):
        return f"{reason}: {exc.filename}"
    return reason


def _open_failure(path: Path, exc: OSError, created: bool) -> str:
    """What went wrong opening ``path`` for appends, and what the user can do."""
    if created:
        return (
            f"cannot create the session file {path}: {_reason(exc, path)}; "
            "choose another --session-dir, or pass --no-session"
        )
    return (
        f"cannot write the session file {path}: {_reason(exc, path)}. The file was left "
        "untouched: make it writable, open it read-only (--read-only), or start a new "
        "session (without -c / --session)"
    )


async def _free_name(path: Path) -> Path:
    """``path``, or ``path.1``, ``path.2`` … whichever does not exist yet."""
    candidate, n = path, 0
    while await asyncio.to_thread(os.path.exists, candidate):
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate


def held_elsewhere(path: Path) -> bool:
    """Whether another process holds ``path``'s writer lock (a pitui has it open).

    Probes with the same ``flock`` the writer takes, released at once; a file this
    process holds open through another descriptor also counts as held (flock locks
    belong to the open file description).
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_for_append(path: Path) -> int:
    """The session file's fd for appending, created 0600 in a 0700 folder."""
    private_dir(path.parent)
    return open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)


def _write_flushed(handle: BinaryIO, data: bytes) -> None:
    """Write and flush: in the kernel when this returns (blocking)."""
    handle.write(data)
    handle.flush()


def _write_durably(handle: BinaryIO, data: bytes) -> None:
    """Write, flush and fsync: on disk when this returns (blocking)."""
    _write_flushed(handle, data)
    os.fsync(handle.fileno())


def _replace_durably(path: Path, temp: Path, data: bytes) -> BinaryIO:
    """Write ``data`` to a locked ``temp``, fsync it, rename it over ``path`` and fsync the
    folder; returns the (locked) handle of the new file. ``temp`` is gone if this fails."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    handle = open(open_private(temp, flags), "wb")  # noqa: SIM115  (kept open: the writer's)
    try:
        _lock(handle, temp)  # locked before it becomes visible under the real name
        _write_durably(handle, data)
        os.replace(temp, path)
        _fsync_dir(path.parent)
    except BaseException:
        handle.close()
        if os.path.exists(temp):
            os.remove(temp)
        raise
    return handle


def _keep_original(path: Path, backup: Path) -> None:
    """``path`` also under ``backup`` (a hard link, else a copy), the folder fsynced."""
    try:
        os.link(path, backup)
    except OSError:
        shutil.copy2(path, backup)
    _fsync_dir(path.parent)


class SessionWriter:
    """An open, locked session file that accepts appends."""

    def __init__(self, path: Path, handle: BinaryIO, needs_newline: bool) -> None:
        self.path = path
        self._handle = handle
        self._needs_newline = needs_newline
        self._syncing: asyncio.Future[None] | None = None
        """The fsync of the last append (or of the folder of a new file), still running."""

    @classmethod
    async def open(cls, path: Path, *, needs_newline: bool = False) -> SessionWriter:
        """Open (creating it if missing) and lock ``path`` for appending.

        Raises:
            SessionError: Another process holds the file, or it cannot be created or
                opened for writing (a read-only file or directory, a path through a file).
        """
        created = not await asyncio.to_thread(os.path.exists, path)
        try:
            fd = await asyncio.to_thread(_open_for_append, path)
        except OSError as exc:
            raise SessionError(
                _open_failure(path, exc, created), title="Session not saved"
            ) from exc
        handle: BinaryIO = await asyncio.to_thread(open, fd, "ab")
        try:
            _lock(handle, path)
        except SessionError:
            handle.close()
            raise
        writer = cls(path, handle, needs_newline)
        if created:  # the file's name reaches the disk while the first entry is made
            writer._syncing = asyncio.ensure_future(asyncio.to_thread(_fsync_dir, path.parent))
        return writer

    def set_needs_newline(self, value: bool) -> None:
        """Whether the file ends without a newline (a torn or unterminated last line)."""
        self._needs_newline = value

    async def append(self, data: bytes) -> None:
        """Append whole lines, written and flushed before returning (then fsynced meanwhile).

        Raises:
            SessionError: This write failed, or the fsync of the previous one did.
        """
        await self._synced()
        if self._needs_newline:
            # Never glue an entry to the torn tail of a crashed write.
            data = b"\n" + data
        try:
            await asyncio.to_thread(_write_flushed, self._handle, data)
        except OSError as exc:
            raise self._failure(exc) from exc
        self._needs_newline = False
        self._syncing = asyncio.ensure_future(asyncio.to_thread(os.fsync, self._handle.fileno()))

    async def _synced(self) -> None:
        """Wait for the fsync still running (if any); raise its failure."""
        syncing, self._syncing = self._syncing, None
        if syncing is None:
            return
        try:
            await syncing
        except OSError as exc:
            raise self._failure(exc) from exc

    def _failure(self, exc: OSError) -> SessionError:
        return SessionError(
            f"cannot write the session file {self.path}: {_reason(exc, self.path)}",
            title="Session not saved",
        )

    async def replace_all(self, data: bytes) -> None:
        """Atomically replace the file's content (temp file + fsync + rename), keeping the lock."""
        await self._synced()
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        handle = await asyncio.to_thread(_replace_durably, self.path, temp, data)
        old, self._handle = self._handle, handle
        self._needs_newline = False
        await asyncio.to_thread(old.close)

    async def replace_keeping_original(self, data: bytes, suffix: str) -> Path:
        """:meth:`replace_all`, the original kept as ``FILE<suffix>`` (or ``FILE<suffix>.N``).

        The original is hard-linked under the new name first (no copy, and the rename of
        the new content cannot touch it); where links are not possible it is copied.

        Returns:
            The path of the kept original.
        """
        backup = await _free_name(self.path.with_name(self.path.name + suffix))
        await asyncio.to_thread(_keep_original, self.path, backup)
        await self.replace_all(data)
        return backup

    async def close(self) -> None:
        """Wait for the last fsync, then close the file (releasing the lock).

        Raises:
            SessionError: That fsync failed (the file is closed all the same).
        """
        try:
            await self._synced()
        finally:
            await asyncio.to_thread(self._handle.close)
