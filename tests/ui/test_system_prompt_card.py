"""A resumed pi 1.6 session shows its system messages as collapsed "System prompt" cards."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Static

from pitui.ui.view.events import ToggleItem
from pitui.ui.view.state import SystemPromptItem, UserItem
from pitui.ui.widgets.conversation import ConversationView
from tests.ui.flows import items_of, launch, make_project, started

PI16 = Path(__file__).parents[1] / "fixtures" / "pi-1.6" / "session.jsonl"


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "1")


def _text(widget: object) -> str:
    assert isinstance(widget, Static)
    return str(widget.render())


async def test_system_messages_are_collapsed_cards_that_expand(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    path = tmp_path / "pi16.jsonl"
    shutil.copy(PI16, path)
    app = launch(project, "--model", "demo/demo", "--session", str(path))
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await pilot.pause(0.05)
        cards = items_of(app, SystemPromptItem)
        assert [c.summary for c in cards] == [
            "5 sections, 4 tools",
            "tools, rules; −bash, −edit, −write",
        ]
        assert [u.text for u in items_of(app, UserItem)] == ["hello", "again"]
        pane = app.query_one(ConversationView)
        first = pane.widget_for(cards[0].id)
        assert _text(first) == "▸ System prompt · 5 sections, 4 tools (ctrl+o to expand)"
        await app.apply([ToggleItem(cards[0].id)])
        await pilot.pause()
        shown = _text(pane.widget_for(cards[0].id))
        assert shown.startswith("▾ System prompt · 5 sections, 4 tools\nYou are a coding assistant")
        assert "+ edit: Edit a single file" in shown
        await app.apply([ToggleItem(cards[1].id)])
        await pilot.pause()
        change = _text(pane.widget_for(cards[1].id))
        assert "<tools>\n- read: Read file contents" in change
        assert change.endswith("Tools:\n− bash\n− edit\n− write")
