"""SVG snapshots of the main screen fed with a recorded conversation.

Regenerate with ``pytest tests/ui/test_snapshots.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from tests.ui.harness import FeedSource, freeze, make_app, settle, wait_subscribed
from tests.ui.script import demo_conversation

SnapCompare = Callable[..., bool]


def _feed(source: FeedSource) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        freeze(pilot.app)  # type: ignore[arg-type]
        source.emit(demo_conversation())
        await settle(pilot)

    return run_before


def test_main_screen_wide(snap_compare: SnapCompare) -> None:
    source = FeedSource()
    app = make_app(source)
    assert snap_compare(app, terminal_size=(120, 36), run_before=_feed(source))


def test_main_screen_narrow(snap_compare: SnapCompare) -> None:
    source = FeedSource()
    app = make_app(source)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_feed(source))


def test_main_screen_narrow_tools_expanded(snap_compare: SnapCompare) -> None:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _feed(source)(pilot)
        await pilot.press("f2", "ctrl+o")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
