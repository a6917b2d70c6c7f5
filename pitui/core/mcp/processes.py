"""Server processes: started in their own process group, always stopped with it.

A stdio server often runs behind a wrapper (``npx``, ``uvx``) whose child is the real
server, so every server starts a new session (its own process group) and stopping it
reaches the whole group: stdin is closed first (the polite MCP way), then the group gets
SIGTERM, then SIGKILL. Every live group is also recorded here so that pitui going away
by any route (an exception, ``sys.exit``, SIGHUP handled by a mode) still kills them:
an ``atexit`` hook sends the same escalation to whatever is left. A server that outlives
a SIGKILLed pitui still loses its stdin and, like every MCP server, ends on EOF.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import time
from collections.abc import Callable

STDIN_GRACE_S = 2.0
"""How long a server may take to exit once its stdin closed."""
TERM_GRACE_S = 2.0
"""How long between SIGTERM and SIGKILL."""
_POLL_S = 0.02

_live_groups: set[int] = set()


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is left (signal 0; only ESRCH proves none)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def track(pgid: int) -> None:
    """Remember a started server's group until :func:`stop_group` is done with it."""
    _live_groups.add(pgid)


def live_groups() -> frozenset[int]:
    """Groups started and not stopped yet (tests check none are left)."""
    return frozenset(_live_groups)


async def _wait_until(check: Callable[[], bool], within: float) -> bool:
    deadline = time.monotonic() + within
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL_S)


async def stop_process(process: asyncio.subprocess.Process) -> None:
    """Close stdin, wait, SIGTERM the group, wait, SIGKILL the group.

    The group is checked even when the leader exited by itself: a wrapper may exit and
    leave its server behind. Never raises; cancellation is shielded (the process must
    not leak because the caller gave up).
    """
    task = asyncio.ensure_future(_stop(process))
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


async def _stop(process: asyncio.subprocess.Process) -> None:
    pgid = process.pid
    try:
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        exited = await _wait_until(lambda: process.returncode is not None, STDIN_GRACE_S)
        if exited and not group_alive(pgid):
            return
        _signal_group(pgid, signal.SIGTERM)
        if not await _wait_until(lambda: not group_alive(pgid), TERM_GRACE_S):
            _signal_group(pgid, signal.SIGKILL)
            await _wait_until(lambda: not group_alive(pgid), TERM_GRACE_S)
    finally:
        _live_groups.discard(pgid)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 1.0)


def kill_all_now() -> None:
    """Stop every tracked group at once (blocking, short): the last resort at exit."""
    groups = list(_live_groups)
    for pgid in groups:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline and any(group_alive(g) for g in groups):
        time.sleep(_POLL_S)
    for pgid in groups:
        if group_alive(pgid):
            _signal_group(pgid, signal.SIGKILL)
    _live_groups.clear()


atexit.register(kill_all_now)
