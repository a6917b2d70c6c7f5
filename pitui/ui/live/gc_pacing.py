"""The cyclic collector paced for an agent run, so that no long pause lands mid-reply.

While a reply streams, every frame makes thousands of small objects (each of Textual's
strips carries seven little caches), and many of them live a few frames in render caches,
so they are promoted. CPython then runs a collection of its oldest generation every ten
middle ones, about every 0.3 s here, and each walks every tracked object: the transcript,
the widgets, Textual's caches — ~100 ms with a 5,000-message session open (on a 2 GHz
machine), and a key typed meanwhile waits for it (issue 26's echo row: its p99 is these
pauses).

From the start of a run to its end this:

- freezes what exists (``gc.freeze()``: the transcript, the widgets on screen), so a full
  collection during the run walks only what the run made (a fifth to a third of it);
- runs the oldest generation's collection ten times less often (its threshold 100, not 10).
  Young collections are untouched (a few ms each at most).

When the run ends, all of it is unfrozen (an object that became cyclic garbage meanwhile
is collected as usual from then on: nothing is kept for good) and the thresholds restored.
"""

from __future__ import annotations

import gc

RUN_OLDEST_THRESHOLD = 100
"""Middle-generation collections between two full ones while a run streams (CPython: 10)."""


class RunCollection:
    """Paces the cyclic collector while the agent runs (:meth:`follow` each new state)."""

    def __init__(self) -> None:
        self._saved: tuple[int, int, int] | None = None
        """The thresholds before the run (None: no run paced now)."""

    @property
    def pacing(self) -> bool:
        """Whether a run is being paced now."""
        return self._saved is not None

    def follow(self, running: bool) -> None:
        """Pace the collector if the agent is ``running``, else restore it (idempotent:
        called for every state shown, which also covers a run ended by a rebuilt view)."""
        if running and self._saved is None:
            saved = self._saved = gc.get_threshold()
            gc.set_threshold(saved[0], saved[1], max(saved[2], RUN_OLDEST_THRESHOLD))
            gc.freeze()
        elif not running and self._saved is not None:
            saved, self._saved = self._saved, None
            gc.unfreeze()
            gc.set_threshold(*saved)
