"""Crash safety across processes: SIGKILL while appending; a second writer is refused."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.ai.types import AssistantMessage, UserMessage
from pitui.core.session.store import SessionStore
from pitui.errors import SessionError
from tests.core.session.helpers import HEADER, assistant, entry, jsonl

ROOT = Path(__file__).parents[3]
KILL_RUNS = 50


class Zygote:
    """Drives ``zygote.py``: one warm process that forks a worker per request."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("zygote.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )

    def start(self, command: str, path: Path) -> int:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{command} {path}\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())

    def wait_done(self) -> None:
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "done"

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    try:
        yield z
    finally:
        z.close()


def _acks(path: Path, timeout: float = 0.0) -> list[str]:
    acks = Path(f"{path}.acks")
    deadline = time.monotonic() + timeout
    while True:
        lines = acks.read_text().split("\n") if acks.exists() else []
        complete = [line for line in lines[:-1] if line]  # a torn last ack is not an ack
        if complete or time.monotonic() >= deadline:
            return complete
        time.sleep(0.002)


def _verify(path: Path, acked: list[str], rng: random.Random) -> None:
    if not path.exists():
        assert not acked
        return
    store = asyncio.run(SessionStore.open(path, read_only=True))
    ids = {e.id for e in store.get_entries()}
    assert set(acked) <= ids, "an acknowledged (fsynced) entry was lost"
    assert not store.report.bad_lines
    if rng.random() < 0.3:
        asyncio.run(_append_after_crash(path, len(ids), torn_line(path, store)))


def torn_line(path: Path, store: SessionStore) -> int | None:
    """The number of the torn last line a crash left in ``path``, if any."""
    return path.read_bytes().count(b"\n") + 1 if store.report.torn_tail else None


async def _append_after_crash(path: Path, before: int, torn_line: int | None) -> None:
    store = await SessionStore.open(path)
    new_ids = [
        await store.append_message(UserMessage(content="resumed", timestamp=3)),
        await store.append_message(AssistantMessage(api="a", provider="p", model="m")),
    ]
    await store.close()
    again = await SessionStore.open(path, read_only=True)
    assert all(again.get_entry(i) is not None for i in new_ids)
    assert again.entry_count() == before + 2  # nothing glued to a torn line
    # The torn bytes are kept (nothing is thrown away): crash residue, not a bad line.
    assert not again.report.bad_lines
    assert again.report.torn_lines == ([torn_line] if torn_line is not None else [])


def test_sigkill_while_appending_never_loses_a_written_entry(
    zygote: Zygote, tmp_path: Path
) -> None:
    rng = random.Random(1234)
    torn = entries = 0
    for run in range(KILL_RUNS):
        path = tmp_path / f"run{run}.jsonl"
        pid = zygote.start("append", path)
        time.sleep(rng.uniform(0.005, 0.05))
        os.kill(pid, signal.SIGKILL)
        zygote.wait_done()
        data = path.read_bytes() if path.exists() else b""
        torn += bool(data) and not data.endswith(b"\n")
        acked = _acks(path)
        entries += len(acked)
        _verify(path, acked, rng)
    print(f"{KILL_RUNS} kills, {entries} acknowledged entries, {torn} torn tails")


def test_second_writer_process_is_refused(zygote: Zygote, tmp_path: Path) -> None:
    path = tmp_path / "held.jsonl"
    path.write_bytes(jsonl([HEADER, entry("a1", None, message=assistant())]))
    pid = zygote.start("hold", path)
    try:
        assert _acks(path, timeout=10) == ["held"]
        with pytest.raises(SessionError, match="another pitui process"):
            asyncio.run(SessionStore.open(path))
        store = asyncio.run(SessionStore.open(path, fallback_read_only=True))
        assert store.read_only
    finally:
        os.kill(pid, signal.SIGKILL)
        zygote.wait_done()
    asyncio.run(_reopen_for_writing(path))


async def _reopen_for_writing(path: Path) -> None:
    store = await SessionStore.open(path)  # the lock died with its process
    await store.close()
