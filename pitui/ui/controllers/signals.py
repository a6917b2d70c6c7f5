"""SIGTERM, SIGHUP (a closed terminal) and SIGINT from outside quit the TUI as Ctrl+Q does,
and a process whose terminal is gone still ends.

After SIGHUP the terminal may no longer exist, and Textual's driver can then block for
ever restoring it (its writer thread waits on output nobody reads). So once the session
is saved and closed, :meth:`QuitSignals.end_if_stuck` arms a timer that ends the process
a moment later if shutting down has not; and from the signal itself a longer failsafe
runs, for a shutdown that blocks before the session is closed (an approval dialog open
when the terminal went away did). Ending the process that way skips ``atexit``, so both
first stop the MCP servers' process groups (no server outlives pitui).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable

from pitui.core.interrupt import SignalWatch

SHUTDOWN_GRACE_S = 3.0
"""After a SIGHUP / SIGTERM, how long shutting down may take once the session is closed."""
FAILSAFE_S = 10.0
"""After a SIGHUP / SIGTERM, how long shutting down may take at all."""


def end_now(code: int) -> None:
    """End the process at once, MCP servers first (``os._exit`` runs no ``atexit``)."""
    processes = sys.modules.get("pitui.core.mcp.processes")
    if processes is not None:
        processes.kill_all_now()
    os._exit(code)


def _arm(delay: float, code: int) -> None:
    timer = threading.Timer(delay, end_now, [code])
    timer.daemon = True
    timer.start()


class QuitSignals:
    """The TUI's signal handling: every interrupt signal calls ``quit``."""

    def __init__(self, quit: Callable[[], None]) -> None:
        def first(signum: int) -> None:
            if signum in (signal.SIGHUP, signal.SIGTERM):
                _arm(FAILSAFE_S, 128 + signum)
            quit()

        self._watch: SignalWatch | None = SignalWatch(first, lambda _s: quit())

    def install(self) -> None:
        """Install on the running loop (not possible off the main thread: then no-op)."""
        if self._watch is None:
            return
        try:
            self._watch.install()
        except (ValueError, RuntimeError):  # not the main thread (an embedding host)
            self._watch = None

    def remove(self) -> None:
        """Restore the default handlers (the app is going away)."""
        if self._watch is not None:
            self._watch.remove()

    def end_if_stuck(self) -> None:
        """After a SIGHUP / SIGTERM: end the process if shutdown blocks (see the module)."""
        received = self._watch.received if self._watch is not None else None
        if received not in (signal.SIGHUP, signal.SIGTERM):
            return
        assert received is not None
        _arm(SHUTDOWN_GRACE_S, 128 + received)
