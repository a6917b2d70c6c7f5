"""The tree rows equal what pi 0.73's own /tree selector renders (tests/fixtures/pi-oracle/tree)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pitui.core.session.store import SessionStore
from pitui.core.session.tree_view import TreeView

ORACLE = Path(__file__).resolve().parents[2] / "fixtures" / "pi-oracle" / "tree"
CASES = sorted(ORACLE.glob("*.tree.json"))


def _pi_rows(view: TreeView, selected: int) -> list[str]:
    """Our rows in pi's shape: the cursor column, no leaf arrow and no broken-link mark
    (pitui's additions)."""
    if not len(view):
        return ["  No entries found", f"  {view.footer(0)}"]
    rows = []
    for index in range(len(view)):
        line = view.row(index).line().removesuffix(" ←").replace("⚠ broken link: ", "")
        rows.append(("› " if index == selected else "  ") + line)
    return [*rows, "  " + view.footer(selected)]


def _load(path: Path, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """The oracle record and a copy of its session file."""
    case: dict[str, Any] = json.loads(path.read_text())
    copy = tmp_path / case["session"]
    copy.write_bytes((ORACLE / case["session"]).read_bytes())
    return case, copy


async def _view(case: dict[str, Any], copy: Path) -> TreeView:
    store = await SessionStore.open(copy, read_only=True)
    assert store.get_leaf_id() == case["leafId"]
    return TreeView(store.table, store.labels(), store.get_leaf_id())


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
async def test_rows_in_every_filter_match_pi(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, copy = _load(path, tmp_path)
    monkeypatch.setenv("HOME", case["home"])
    view = await _view(case, copy)
    for mode, expected in case["modes"].items():
        view.set_filter(mode)
        selected = view.nearest_row(case["leafId"])
        assert selected == expected["selectedIndex"] or not expected["ids"], mode
        assert [view.row(i).entry_id for i in range(len(view))] == expected["ids"], mode
        assert _pi_rows(view, selected) == expected["rows"], mode


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
async def test_folds_and_search_match_pi(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, copy = _load(path, tmp_path)
    monkeypatch.setenv("HOME", case["home"])
    for key in ("folded", "folded_segment"):
        fold = case.get(key)
        if not fold:
            continue
        view = await _view(case, copy)
        index = view.index_of(fold["foldedId"])
        assert index is not None
        selected = view.fold_or_up(index)
        assert selected == fold["selectedIndex"]
        assert _pi_rows(view, selected) == fold["rows"], key
    search = case["search_read"]
    view = await _view(case, copy)
    view.set_query(search["query"])
    selected = view.nearest_row(case["leafId"])
    assert [view.row(i).entry_id for i in range(len(view))] == search["ids"]
    if search["ids"]:
        assert _pi_rows(view, selected) == search["rows"]
