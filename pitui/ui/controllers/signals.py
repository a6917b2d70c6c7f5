"""SIGTERM, SIGHUP (a closed terminal) and SIGINT from outside quit the TUI as Ctrl+Q does,
and a process whose terminal is gone still ends.

After SIGHUP the terminal may no longer exist, and Textual's driver can then block for
ever restoring it (its writer thread waits on output nobody reads); a modal waiting for an
answer (the approval dialog) can keep the run, and with it the close, from ever ending.
So SIGHUP and SIGTERM arm a deadline the moment they arrive: a plain signal handler (it
runs even while the event loop is stuck, unlike the loop's own handlers, which still quit
the app as before) starts a timer that ends the process :data:`SHUTDOWN_GRACE_S` later if
shutting down has not. Every entry is on disk when its append returns, so what is lost
then is at most the reply still streaming. Ending the process that way skips ``atexit``,
so the MCP servers' process groups are stopped first (no server outlives pitui).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable

from pitui.core.interrupt import SignalWatch

SHUTDOWN_GRACE_S = 2.5
"""After a SIGHUP / SIGTERM, how long shutting down may take (pitui ends within 3 s)."""
_RESET_TERMINAL = b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?25h\x1b[?1049l"
"""Mouse reporting and bracketed paste off, the cursor shown, the main screen back."""


class QuitSignals:
    """The TUI's signal handling: every interrupt signal calls ``quit``."""

    def __init__(self, quit: Callable[[], None]) -> None:
        self._watch: SignalWatch | None = SignalWatch(lambda _s: quit(), lambda _s: quit())
        self._timer: threading.Timer | None = None

    def install(self) -> None:
        """Install on the running loop (not possible off the main thread: then no-op)."""
        if self._watch is None:
            return
        try:
            self._watch.install()
        except (ValueError, RuntimeError):  # not the main thread (an embedding host)
            self._watch = None
            return
        # The loop's handlers run only when the loop does; the wakeup fd they rely on
        # still reaches the loop with these plain handlers in place.
        for signum in (signal.SIGHUP, signal.SIGTERM):
            signal.signal(signum, self._deadline)

    def _deadline(self, signum: int, _frame: object) -> None:
        if self._timer is None:
            self._timer = threading.Timer(SHUTDOWN_GRACE_S, _end_now, [128 + signum])
            self._timer.daemon = True
            self._timer.start()

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
        self._deadline(received, None)


def _end_now(code: int) -> None:
    """End the process at once, MCP servers first, leaving the terminal (if there still
    is one) usable."""
    processes = sys.modules.get("pitui.core.mcp.processes")  # loaded only with servers
    if processes is not None:
        processes.kill_all_now()
    try:
        fd = os.open("/dev/tty", os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        fd = -1
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.write(fd, _RESET_TERMINAL)
        os.close(fd)
    os._exit(code)
