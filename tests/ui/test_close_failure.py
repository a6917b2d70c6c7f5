"""A session whose last write fails to reach the disk at exit: the TUI says so after its
screen is gone (``PituiApp.closing_error``, printed by ``pitui.ui.launch``), never with a
traceback from the unmount."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pitui.errors import SessionError
from tests.ui.command_support import make_session, running


def _failing_fsync(_fd: int) -> None:
    raise OSError(errno.EIO, os.strerror(errno.EIO))


async def test_a_failed_last_fsync_is_kept_for_after_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = await make_session(tmp_path)
    async with running(session, "hello") as (app, pilot):
        monkeypatch.setattr(os, "fsync", _failing_fsync)
        await session.set_name("Disk trouble")  # written; its fsync fails meanwhile
        await pilot.pause()
    assert isinstance(app.closing_error, SessionError)
    assert "Input/output error" in str(app.closing_error)
    assert app.return_code in (0, None)
