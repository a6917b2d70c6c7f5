"""The branch chooser's "comparing files…" goes once the files are known, even when the
comparison ends before the chooser is mounted (a point with no checkpoint: at once)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from pitui.ui.screens.navigate import SummaryChooser
from tests.ui.flows import idle, launch, started, submit, wait_for


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def test_the_hint_stops_saying_comparing_once_the_files_are_known(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    app = launch(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await submit(pilot, "hello")
        await idle(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause(0.2)
        await pilot.press("up", "enter")  # the user message: before the first checkpoint
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryChooser), "the chooser")
        chooser = app.screen
        assert isinstance(chooser, SummaryChooser)
        await wait_for(pilot, lambda: not chooser.comparing, "the comparison")
        await pilot.pause(0.1)
        hint = str(chooser.query_one("#navigate-hint", Static).content)
        assert "comparing" not in hint, hint
        await pilot.press("escape")
        await pilot.pause(0.1)
