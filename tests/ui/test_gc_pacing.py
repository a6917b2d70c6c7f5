"""The cyclic collector is paced while the agent runs, and left as it was when it ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from pitui.ui.live.gc_pacing import RUN_OLDEST_THRESHOLD, RunCollection
from pitui.ui.screens.main import MainScreen
from tests.ui.harness import FeedSource, make_app, settle
from tests.ui.script import Script


@pytest.fixture
def collector() -> Iterator[tuple[int, int, int]]:
    """The thresholds before the test, restored after it (whatever the test left)."""
    saved = gc.get_threshold()
    yield saved
    gc.unfreeze()
    gc.set_threshold(*saved)


def test_a_run_freezes_and_collects_the_oldest_generation_less_often(
    collector: tuple[int, int, int],
) -> None:
    pacing = RunCollection()
    gc.unfreeze()
    pacing.follow(True)
    assert pacing.pacing and gc.get_freeze_count() > 0
    assert gc.get_threshold() == (*collector[:2], max(collector[2], RUN_OLDEST_THRESHOLD))
    pacing.follow(True)  # a state of the same run: nothing changes
    assert gc.get_threshold()[2] == max(collector[2], RUN_OLDEST_THRESHOLD)
    pacing.follow(False)
    assert not pacing.pacing
    assert gc.get_freeze_count() == 0, "nothing stays frozen after the run"
    assert gc.get_threshold() == collector
    pacing.follow(False)  # idle states: nothing to restore
    assert gc.get_threshold() == collector


async def test_the_app_paces_from_agent_start_to_agent_end(
    collector: tuple[int, int, int],
) -> None:
    source = FeedSource()
    app = make_app(source)
    s = Script().start().user("hi").assistant().text("one ", "two ", end=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        source.emit(s.events)
        await settle(pilot)
        assert screen.run_collection.pacing
        assert gc.get_threshold()[2] == max(collector[2], RUN_OLDEST_THRESHOLD)
        end = Script()
        end.partial = s.partial
        end.end().agent_end()
        source.emit(end.events)
        await settle(pilot)
        assert not screen.run_collection.pacing
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == collector


async def test_an_app_closed_mid_run_restores_the_collector(
    collector: tuple[int, int, int],
) -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(120, 36)) as pilot:
        source.emit(Script().start().user("hi").assistant().text("streaming", end=False).events)
        await settle(pilot)
        assert gc.get_threshold()[2] == max(collector[2], RUN_OLDEST_THRESHOLD)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == collector
