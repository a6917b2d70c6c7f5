"""run_blocking: asyncio.run's result without the task ever formatting it."""

from __future__ import annotations

import pytest

from pitui.core.blocking import run_blocking


class _Heavy:
    """Counts its formattings (a report of 100k entries costs seconds each)."""

    def __init__(self) -> None:
        self.formatted = 0

    def __repr__(self) -> str:
        self.formatted += 1
        return "heavy"


def test_the_result_comes_back_unformatted() -> None:
    heavy = _Heavy()

    async def produce() -> _Heavy:
        return heavy

    assert run_blocking(produce()) is heavy
    assert heavy.formatted == 0


def test_an_exception_propagates() -> None:
    async def fail() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        run_blocking(fail())
