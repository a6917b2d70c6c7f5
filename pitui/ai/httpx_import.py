"""httpx, imported without its command-line client.

``import httpx`` also imports ``httpx._main``, the ``httpx`` command, whenever click, rich
and pygments are installed — and Textual brings rich and pygments, so they always are:
~180 M instructions, more than the rest of httpx. pitui never runs that command, so the
import is made while ``httpx._main`` is marked missing; httpx then defines its stand-in
``main`` (which only prints how to install the CLI). The mark is lifted afterwards, so a
later ``import httpx._main`` elsewhere still works.

Every pitui module that needs httpx imports it from here (``from pitui.ai.httpx_import
import httpx``).
"""

from __future__ import annotations

import sys

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    sys.modules["httpx._main"] = None  # type: ignore[assignment]  # import → ImportError
    try:
        import httpx
    finally:
        del sys.modules["httpx._main"]
else:
    import httpx

__all__ = ["httpx"]
