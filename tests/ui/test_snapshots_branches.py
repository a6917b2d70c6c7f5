"""SVG snapshots of the Branches pane: three panes at 120×36 with a branchy session (a fold
and labels), the summary chooser, the fork picker, and 80×24 with the tree swapped in.

Regenerate with ``pytest tests/ui/test_snapshots_branches.py --snapshot-update`` and review.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pitui.core.session.fork import fork_points
from pitui.core.session.store import SessionStore
from pitui.ui.app import PituiApp
from pitui.ui.screens.fork import ForkPicker
from pitui.ui.screens.navigate import SummaryChooser
from pitui.ui.view.tree_pane import TreePaneState
from tests.ui.harness import FeedSource, freeze, make_app, settle, wait_subscribed
from tests.ui.script import demo_conversation

SnapCompare = Callable[..., bool]
BRANCHY = Path(__file__).resolve().parents[1] / "fixtures" / "pi-oracle" / "tree" / "branchy.jsonl"


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/tmp/pi-oracle-home")  # the fixture's ~ paths


async def _store(tmp: Path) -> SessionStore:
    copy = tmp / "branchy.jsonl"
    copy.write_bytes(BRANCHY.read_bytes())
    return await SessionStore.open(copy, read_only=True)


def _setup(
    source: FeedSource, tmp: Path, then: Callable[[Pilot[Any], SessionStore], Any] | None = None
) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        app = pilot.app
        assert isinstance(app, PituiApp)
        freeze(app)
        source.emit(demo_conversation())
        store = await _store(tmp)
        state = TreePaneState(store.table, store.labels(), store.get_leaf_id())
        approach_a = state.view.index_of("a0000009")
        assert approach_a is not None
        state.view.fold_or_up(approach_a)  # a folded branch
        app.main.branches.rows.show(state)
        app.main.focus_branches()
        await settle(pilot)
        if then is not None:
            await then(pilot, store)
            await settle(pilot)
            freeze(app)  # the fields of the screen just pushed (their cursor's blink)
            await settle(pilot)

    return run_before


def test_three_panes_with_a_branchy_tree(snap_compare: SnapCompare, tmp_path: Path) -> None:
    source = FeedSource()
    assert snap_compare(
        make_app(source), terminal_size=(120, 36), run_before=_setup(source, tmp_path)
    )


def test_summary_chooser(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def chooser(pilot: Pilot[Any], store: SessionStore) -> None:
        pilot.app.push_screen(SummaryChooser("user: Try approach B"))

    source = FeedSource()
    run_before = _setup(source, tmp_path, chooser)
    assert snap_compare(make_app(source), terminal_size=(120, 36), run_before=run_before)


def test_fork_picker(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def picker(pilot: Pilot[Any], store: SessionStore) -> None:
        pilot.app.push_screen(ForkPicker(fork_points(store.table)))

    source = FeedSource()
    run_before = _setup(source, tmp_path, picker)
    assert snap_compare(make_app(source), terminal_size=(120, 36), run_before=run_before)


def test_narrow_with_the_tree_swapped_in(snap_compare: SnapCompare, tmp_path: Path) -> None:
    source = FeedSource()
    assert snap_compare(
        make_app(source), terminal_size=(80, 24), run_before=_setup(source, tmp_path)
    )
