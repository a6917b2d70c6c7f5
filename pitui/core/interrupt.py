"""SIGINT, SIGTERM and SIGHUP end a run the way Esc does, so nothing streamed is lost.

Left to their defaults, these signals kill the process mid-reply: the prompt and the
partial reply never reach the session file (pi writes nothing before the first reply).
Instead the first one aborts the session (:meth:`AgentSession.abort`): the agent ends
the reply as ``aborted`` and the store appends it with everything before it; then the
mode exits. A second signal stops waiting.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def exit_code(signum: int) -> int:
    """The shell's code for a process ended by ``signum`` (130 for SIGINT)."""
    return 128 + signum


class SignalWatch:
    """Calls ``on_first(signum)`` at the first interrupt signal, ``on_again`` at the next.

    Installed on the running loop by :meth:`install`; :meth:`remove` restores the
    defaults. ``received`` is the first signal's number (None until one came).
    """

    def __init__(
        self, on_first: Callable[[int], None], on_again: Callable[[int], None] | None = None
    ) -> None:
        self.received: int | None = None
        self._on_first = on_first
        self._on_again = on_again
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> SignalWatch:
        loop = self._loop = asyncio.get_running_loop()
        for signum in INTERRUPT_SIGNALS:
            loop.add_signal_handler(signum, self._handle, signum)
        return self

    def remove(self) -> None:
        if self._loop is None:
            return
        for signum in INTERRUPT_SIGNALS:
            self._loop.remove_signal_handler(signum)
        self._loop = None

    def _handle(self, signum: int) -> None:
        if self.received is None:
            self.received = signum
            self._on_first(signum)
        elif self._on_again is not None:
            self._on_again(signum)
