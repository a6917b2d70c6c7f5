"""SVG snapshots: the context inspector, a search with its matches, a selected item.

Regenerate with ``pytest tests/ui/test_snapshots_conversation.py --snapshot-update`` and
review the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from pitui.core.context_report import build_context_report
from pitui.ui.screens.context import ContextScreen
from tests.ui.command_support import no_local_ollama  # noqa: F401  (autouse fixture)
from tests.ui.conversation_support import session_on
from tests.ui.harness import FeedSource, freeze, make_app, settle, wait_subscribed
from tests.ui.script import demo_conversation

SnapCompare = Callable[..., bool]
WIDE = (120, 36)
NARROW = (80, 24)
# The real prompt names today's date and the test's temporary folder: not for a picture.
SYSTEM_PROMPT = "You are an expert coding assistant operating inside pitui.\n\nGuidelines: …"


def _fed(keys: tuple[str, ...]) -> tuple[Any, Callable[[Pilot[Any]], Any]]:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        freeze(app)
        source.emit(demo_conversation())
        await settle(pilot)
        await pilot.press(*keys)
        freeze(app)
        await settle(pilot)

    return app, run_before


def test_context_inspector(snap_compare: SnapCompare, tmp_path: Path) -> None:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        freeze(app)
        session = await session_on(tmp_path)
        report = await build_context_report(session)
        await session.close()
        report.system_prompt = SYSTEM_PROMPT
        app.push_screen(ContextScreen(report))
        await settle(pilot)

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_search_with_matches_highlighted(snap_compare: SnapCompare) -> None:
    app, run_before = _fed(("ctrl+f", *"port", "shift+enter"))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_selected_item(snap_compare: SnapCompare) -> None:
    app, run_before = _fed(("ctrl+up", "up", "up", "up"))
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_selected_item_narrow(snap_compare: SnapCompare) -> None:
    app, run_before = _fed(("tab", "up"))
    assert snap_compare(app, terminal_size=NARROW, run_before=run_before)
