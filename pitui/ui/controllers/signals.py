"""SIGTERM, SIGHUP (a closed terminal) and SIGINT from outside quit the TUI as Ctrl+Q does,
and a process whose terminal is gone still ends.

After SIGHUP the terminal may no longer exist, and Textual's driver can then block for
ever restoring it (its writer thread waits on output nobody reads). So once the session
is saved and closed, :meth:`QuitSignals.end_if_stuck` arms a timer that ends the process
a moment later if shutting down has not.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

from pitui.core.interrupt import SignalWatch

SHUTDOWN_GRACE_S = 3.0
"""After a SIGHUP / SIGTERM, how long shutting down may take once the session is closed."""


class QuitSignals:
    """The TUI's signal handling: every interrupt signal calls ``quit``."""

    def __init__(self, quit: Callable[[], None]) -> None:
        self._watch: SignalWatch | None = SignalWatch(lambda _s: quit(), lambda _s: quit())

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
        timer = threading.Timer(SHUTDOWN_GRACE_S, os._exit, [128 + received])
        timer.daemon = True
        timer.start()
