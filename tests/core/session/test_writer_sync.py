"""A session append is in the kernel when it returns; its fsync runs meanwhile.

The next append, a rewrite and ``close`` wait for that fsync and report its failure, so
a disk error is never silent (it arrives one step later than the write it concerns).
"""

from __future__ import annotations

import asyncio
import errno
import os
from pathlib import Path

import pytest

from pitui.core.session.writer import SessionWriter
from pitui.errors import SessionError


def _failing_fsync(_fd: int) -> None:
    raise OSError(errno.EIO, os.strerror(errno.EIO))


def test_an_append_is_written_before_it_returns_and_synced_by_close(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        synced.append(fd)

    async def run() -> None:
        writer = await SessionWriter.open(path)
        await writer.append(b'{"a":1}\n')
        assert path.read_bytes() == b'{"a":1}\n'  # in the kernel already
        await writer.close()
        assert len(synced) == 2  # the new file's folder, then the file

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", fsync)
        asyncio.run(run())


def test_a_failed_fsync_is_reported_by_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n')

    async def run() -> None:
        writer = await SessionWriter.open(path)
        await writer.append(b'{"b":2}\n')  # written; its fsync fails meanwhile
        with pytest.raises(SessionError, match="Input/output error"):
            await writer.append(b'{"c":3}\n')
        await writer.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", _failing_fsync)
        asyncio.run(run())
    assert path.read_bytes() == b'{"a":1}\n{"b":2}\n'


def test_close_reports_a_failed_fsync_and_still_closes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")

    async def run() -> None:
        writer = await SessionWriter.open(path)
        await writer.append(b'{"a":1}\n')
        with pytest.raises(SessionError, match="cannot write the session file"):
            await writer.close()
        reopened = await SessionWriter.open(path)  # the lock was released
        await reopened.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", _failing_fsync)
        asyncio.run(run())
