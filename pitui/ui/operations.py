"""Long operations the user watches and can cancel: a progress card each, Esc cancels.

:class:`Operations` is the app's (``app.operations``). An operation the UI starts (a
manual compaction, a branch summary while navigating the tree) calls :meth:`start`
with its cancel function and :meth:`end` with the events that show its outcome; one
the session starts by itself (auto-compaction) is followed from its events
(:meth:`follow`). While any runs, Esc cancels the newest and new messages wait for it
(the app queues them as follow-ups). The cards are :mod:`pitui.ui.view.progress`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.app import PituiApp
    from pitui.ui.view.reducer import AnyEvent

Cancel = Callable[[], None]


class Operations:
    """The running operations of an app, newest last."""

    def __init__(self, app: PituiApp) -> None:
        self._app = app
        self._cancels: dict[str, Cancel | None] = {}

    def is_running(self, key: str | None = None) -> bool:
        """Whether operation ``key`` (or any) is running."""
        return bool(self._cancels) if key is None else key in self._cancels

    async def start(
        self,
        key: str,
        title: str,
        *,
        detail: str = "",
        cancel: Cancel | None = None,
        cancel_hint: str | None = None,
    ) -> None:
        """Show the card of operation ``key``; Esc calls ``cancel`` (None: no cancel, and
        the card says nothing about Esc unless ``cancel_hint`` is given)."""
        from pitui.ui.view.progress import CANCEL_HINT, ProgressStarted

        self._cancels[key] = cancel
        hint = cancel_hint if cancel_hint is not None else CANCEL_HINT if cancel else ""
        started = ProgressStarted(key, title, time.monotonic(), detail, hint)
        await self._app.apply([started])

    async def end(self, key: str, outcome: Sequence[AnyEvent] = ()) -> None:
        """The operation ended: its card goes, ``outcome`` (notices, a summary card)
        shows where it was."""
        from pitui.ui.view.progress import ProgressEnded

        self._cancels.pop(key, None)
        await self._app.apply([ProgressEnded(key), *outcome])

    def forget(self, key: str) -> None:
        """Stop tracking ``key`` without touching its card (its outcome event ends it)."""
        self._cancels.pop(key, None)

    def cancel_newest(self) -> bool:
        """Esc: cancel the newest cancellable operation; False if there is none."""
        for key in reversed(list(self._cancels)):
            cancel = self._cancels[key]
            if cancel is not None:
                cancel()
                return True
        return False

    def follow(self, events: Iterable[object], cancel_compaction: Cancel | None) -> None:
        """Track the session's own compactions from their start / end events."""
        for event in events:
            kind = getattr(event, "type", None)
            if kind == "auto_compaction_start":
                self._cancels["compaction"] = cancel_compaction
            elif kind == "auto_compaction_end":
                self._cancels.pop("compaction", None)
