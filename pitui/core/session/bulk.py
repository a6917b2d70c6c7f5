"""A guard for building hundreds of thousands of long-lived objects at once.

CPython's cyclic collector runs every few hundred allocations and, as its generations
fill, walks every tracked object again and again: building a large session's entries and
messages then costs several times the work itself. Session data holds no reference
cycles, so collection is paused while it is built. (``gc.freeze()`` would also hide the
result from later collections, but it freezes every object of the process, app objects
included, which would then leak once they become cyclic garbage.)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic GC while the block runs."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
