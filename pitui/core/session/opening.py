"""Opening a session file: lock, read off the loop, parse, migrate in memory.

An old-format (v1/v2) file is migrated in memory only; the store writes the migration
with its first append (see :meth:`SessionStore.flush`), never when a file is just read.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

import aiofiles
import aiofiles.os

from pitui.core.session.entries import SessionHeader
from pitui.core.session.load import (
    LoadedFile,
    needs_newline,
    parse_session_lines,
    read_lines,
)
from pitui.core.session.writer import SessionWriter
from pitui.errors import SessionError

if TYPE_CHECKING:
    from pitui.core.session.store import SessionStore


async def open_store(
    cls: type[SessionStore],
    path: Path | str,
    *,
    session_dir: Path | None,
    read_only: bool,
    fallback_read_only: bool,
) -> SessionStore:
    """The body of :meth:`SessionStore.open` (see there)."""
    file = Path(os.path.abspath(path))  # noqa: ASYNC240  (getcwd only, no disk I/O)
    directory = session_dir or file.parent
    if not await aiofiles.os.path.exists(file):
        store = cls._new(str(Path.cwd()), directory, True, None, None)
        store.path = file
        return store
    if await aiofiles.os.path.isdir(file):
        raise SessionError(f"{file} is a directory, not a session file")
    writer: SessionWriter | None = None
    reason: str | None = None
    if not read_only:
        try:
            writer = await SessionWriter.open(file)
        except SessionError as exc:
            if not fallback_read_only:
                raise
            reason = exc.message
    try:
        loaded, newline = await asyncio.to_thread(_read_and_parse, file)
        store = await _from_loaded(cls, loaded, file, directory, writer, newline)
    except BaseException:
        if writer is not None:
            await writer.close()
        raise
    store.read_only = writer is None
    store.read_only_reason = reason
    return store


async def read_session_bytes(path: Path) -> bytes:
    """The whole file.

    Raises:
        SessionError: It cannot be read (naming the file and the cause).
    """
    try:
        async with aiofiles.open(path, "rb") as handle:
            return await handle.read()
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: Path, exc: OSError) -> SessionError:
    if isinstance(exc, IsADirectoryError):
        return SessionError(f"{path} is a directory, not a session file")
    return SessionError(
        f"cannot read the session file {path}: {exc.strerror or exc}",
        title="Session unreadable",
    )


def _read_and_parse(path: Path) -> tuple[LoadedFile, bool]:
    """(the parsed file, whether it needs a newline before an append), in a thread."""
    try:
        lines = read_lines(str(path))
    except OSError as exc:
        raise _unreadable(path, exc) from None
    return parse_session_lines(lines, name=str(path)), needs_newline(lines)


async def _from_loaded(
    cls: type[SessionStore],
    loaded: LoadedFile,
    file: Path,
    directory: Path,
    writer: SessionWriter | None,
    newline: bool,
) -> SessionStore:
    if writer is not None:
        writer.set_needs_newline(newline)
    if loaded.header is None:  # an empty file: a new session at this path
        store = cls._new(str(Path.cwd()), directory, True, None, None)
        store.path, store._writer = file, writer
        return store
    store = cls(SessionHeader.load(loaded.header), file, directory)
    store.report = loaded.report
    store._table, store._labels = loaded.table, loaded.labels
    store._leaf = loaded.table.ids[-1] if len(loaded.table) else None
    store._has_assistant = "assistant" in loaded.table.roles
    store._pending = []
    store._writer = writer
    if loaded.report.migrated_from is not None:
        # Written with the first append, not now: opening a file to read it changes nothing.
        store._migration = loaded
    return store
