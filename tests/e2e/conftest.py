"""What the real-terminal tests share: pitui started in tmux, closed after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.tmux import Terminal


@pytest.fixture
def open_terminal(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    """Start pitui in ``cwd`` in a tmux terminal (its home ``tmp_path / "home"``; other
    arguments as :class:`Terminal` takes them); every one opened is closed afterwards."""
    opened: list[Terminal] = []

    def open_one(cwd: Path, **options: Any) -> Terminal:
        terminal = Terminal(cwd, tmp_path / "home", **options)
        opened.append(terminal)
        return terminal

    yield open_one
    for terminal in opened:
        terminal.close()
