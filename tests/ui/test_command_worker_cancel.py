"""A command's worker and the command it runs end together: cancelling the worker (the
app's exit, a cancelled group) cancels the command's task, at whatever step it is; the
keys held after its Enter are let go."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, cast

import pytest

from pitui.ui.commands import dispatch
from pitui.ui.host import UiHost


class _Hold:
    released = False

    def release(self) -> None:
        self.released = True


class _Host:
    """What ``dispatch.run`` uses of the app: a worker is an asyncio task here."""

    def __init__(self) -> None:
        self.workers: list[asyncio.Task[None]] = []

    def run_worker(self, work: Coroutine[Any, Any, None], **_: object) -> None:
        self.workers.append(asyncio.ensure_future(work))


@pytest.mark.parametrize("steps", [1, 5])
async def test_a_cancelled_worker_cancels_its_command(
    monkeypatch: pytest.MonkeyPatch, steps: int
) -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def slow_command(host: UiHost, text: str) -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    monkeypatch.setattr(dispatch, "dispatch", slow_command)
    host, hold = _Host(), _Hold()
    dispatch.run(cast(UiHost, host), "/slow", cast(Any, hold))
    for _ in range(steps):
        await asyncio.sleep(0)
    (worker,) = host.workers
    worker.cancel()
    with pytest.raises(asyncio.CancelledError):
        await worker
    assert started.is_set()
    await asyncio.wait_for(cancelled.wait(), 1)
    assert hold.released
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert not [t for t in pending if "slow_command" in repr(t.get_coro())]
