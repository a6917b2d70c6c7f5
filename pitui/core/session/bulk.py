"""A guard for building hundreds of thousands of long-lived objects at once.

CPython's cyclic collector runs every few hundred allocations and, as its generations
fill, walks every tracked object again and again: building a large session's entries and
messages then costs several times the work itself. Session data holds no reference
cycles, so collection is paused while it is built.

Re-enabling alone would make the next collection walk everything built (a long pause).
``gc.freeze()`` followed by ``gc.unfreeze()`` instead moves all tracked objects straight
into the oldest generation without walking them (and resets the young count); the
oldest generation is collected rarely, and nothing stays frozen (a lasting freeze would
leak any app object that later becomes cyclic garbage).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic GC while the block runs; then promote, unwalked, what it built."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            resume_collection()


def resume_collection() -> None:
    """End a pause of the cyclic GC (here, or a start-up's): what was built meanwhile moves
    to the oldest generation unwalked, then collection resumes."""
    gc.freeze()
    gc.unfreeze()
    gc.enable()
