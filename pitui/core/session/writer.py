"""Durable, exclusive writing of one session file.

One writer per file: the writer holds an advisory ``flock`` on the file for as long as it
is open, so a second pitui process is refused instead of interleaving lines. Every append
is written, flushed and fsynced off the event loop (aiofiles). A full rewrite (migration)
goes to a locked temp file that is fsynced and renamed over the original, so a crash
leaves either the old file or the new one, never a half-written one.

Session files are private: mode 0600 in a 0700 folder (a wider file or folder left by an
older version, or by pi, is tightened when it is opened for writing).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import Any

import aiofiles
import aiofiles.os
from aiofiles.threadpool.binary import AsyncBufferedIOBase

from pitui.errors import SessionError
from pitui.private_files import open_private, private_dir

_fsync = aiofiles.os.wrap(os.fsync)


def dumps_line(obj: dict[str, Any]) -> bytes:
    """One JSONL line as pi writes it (compact, UTF-8, trailing newline)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8; escape it the way JSON.stringify does.
        return json.dumps(obj, separators=(",", ":")).encode("ascii") + b"\n"


def _lock(handle: AsyncBufferedIOBase, path: Path) -> None:
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
    while await aiofiles.os.path.exists(candidate):
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


async def _fsync_dir(directory: Path) -> None:
    fd = await aiofiles.os.wrap(os.open)(directory, os.O_RDONLY)
    try:
        await _fsync(fd)
    finally:
        os.close(fd)


def _open_for_append(path: Path) -> int:
    """The session file's fd for appending, created 0600 in a 0700 folder."""
    private_dir(path.parent)
    return open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)


class SessionWriter:
    """An open, locked session file that accepts appends."""

    def __init__(self, path: Path, handle: AsyncBufferedIOBase, needs_newline: bool) -> None:
        self.path = path
        self._handle = handle
        self._needs_newline = needs_newline

    @classmethod
    async def open(cls, path: Path, *, needs_newline: bool = False) -> SessionWriter:
        """Open (creating it if missing) and lock ``path`` for appending.

        Raises:
            SessionError: Another process holds the file, or it cannot be created or
                opened for writing (a read-only file or directory, a path through a file).
        """
        created = not await aiofiles.os.path.exists(path)
        try:
            fd = await aiofiles.os.wrap(_open_for_append)(path)
        except OSError as exc:
            raise SessionError(
                _open_failure(path, exc, created), title="Session not saved"
            ) from exc
        handle = await aiofiles.open(fd, "ab")
        try:
            _lock(handle, path)
        except SessionError:
            await handle.close()
            raise
        if created:
            await _fsync_dir(path.parent)
        return cls(path, handle, needs_newline)

    def set_needs_newline(self, value: bool) -> None:
        """Whether the file ends without a newline (a torn or unterminated last line)."""
        self._needs_newline = value

    async def append(self, data: bytes) -> None:
        """Append whole lines, then flush and fsync before returning."""
        if self._needs_newline:
            # Never glue an entry to the torn tail of a crashed write.
            data = b"\n" + data
        try:
            await self._handle.write(data)
            await self._handle.flush()
            await _fsync(self._handle.fileno())
        except OSError as exc:
            raise SessionError(
                f"cannot write the session file {self.path}: {_reason(exc, self.path)}",
                title="Session not saved",
            ) from exc
        self._needs_newline = False

    async def replace_all(self, data: bytes) -> None:
        """Atomically replace the file's content (temp file + fsync + rename), keeping the lock."""
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        handle = await aiofiles.open(await aiofiles.os.wrap(open_private)(temp, flags), "wb")
        try:
            _lock(handle, temp)  # locked before it becomes visible under the real name
            await handle.write(data)
            await handle.flush()
            await _fsync(handle.fileno())
            await aiofiles.os.replace(temp, self.path)
            await _fsync_dir(self.path.parent)
        except BaseException:
            await handle.close()
            if await aiofiles.os.path.exists(temp):
                await aiofiles.os.remove(temp)
            raise
        old, self._handle = self._handle, handle
        self._needs_newline = False
        await old.close()

    async def replace_keeping_original(self, data: bytes, suffix: str) -> Path:
        """:meth:`replace_all`, the original kept as ``FILE<suffix>`` (or ``FILE<suffix>.N``).

        The original is hard-linked under the new name first (no copy, and the rename of
        the new content cannot touch it); where links are not possible it is copied.

        Returns:
            The path of the kept original.
        """
        backup = await _free_name(self.path.with_name(self.path.name + suffix))
        try:
            await aiofiles.os.link(self.path, backup)
        except OSError:
            await aiofiles.os.wrap(shutil.copy2)(self.path, backup)
        await _fsync_dir(self.path.parent)
        await self.replace_all(data)
        return backup

    async def close(self) -> None:
        """Close the file (releasing the lock)."""
        await self._handle.close()
