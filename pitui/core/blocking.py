"""Run a coroutine to its end from synchronous code, without formatting its result.

``asyncio.run`` (Python 3.11) puts a SIGINT handler holding the main task in place and,
when the run ends, asks ``signal.getsignal`` for it; ``signal`` turns the handler into an
enum and, failing, formats the handler's repr, which is the task's repr, which holds the
repr of the task's result. A result that holds a session (a context report of 100k
entries) costs seconds of ``repr()`` there. The coroutine's result therefore travels
beside the task, which itself returns None.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


def run_blocking(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(coroutine)``, returning its result (or raising its exception)."""
    box: list[_T] = []

    async def main() -> None:
        box.append(await coroutine)

    asyncio.run(main())
    return box[0]
