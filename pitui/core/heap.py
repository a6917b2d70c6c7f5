"""Handing memory freed in bulk back to the system.

Objects larger than Python's small-object allocator takes (512 bytes: entry lines, tool
output) live in the C library's heap. Freeing thousands of them (a session's lines given
up, see ``session/line_source.py``) leaves their pages with the process: glibc returns
only the top of its heap by itself, so the resident size stays where it was. Its
``malloc_trim`` returns every free page. Elsewhere (musl, macOS) there is no such call
and nothing is done.
"""

from __future__ import annotations


def return_free_memory() -> None:
    """Give the pages the C heap holds free back to the system (glibc; else nothing).
    ~1 ms after freeing 10 MB; blocking: call it from a thread or once idle."""
    import ctypes  # lazy: only a long-lived process that freed much calls this

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return
    trim(0)
