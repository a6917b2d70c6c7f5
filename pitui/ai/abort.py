"""A cancellation signal shared by a run, its model call and its tools (pi's AbortSignal)."""

from __future__ import annotations

import asyncio


class AbortSignal:
    """Set once by :meth:`abort`; awaitable by anyone who must stop early."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        """True once :meth:`abort` has been called."""
        return self._event.is_set()

    def abort(self, reason: str | None = None) -> None:
        """Signal everyone listening. Idempotent."""
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    async def wait(self) -> None:
        """Return when the signal is set."""
        await self._event.wait()
