"""Long conversations: a bounded DOM, scroll-lock and the "new output" indicator."""

from __future__ import annotations

import pytest

from pitui.ui.widgets.conversation import ConversationView, ItemPane
from pitui.ui.widgets.messages import UserMessage
from tests.ui.harness import FeedSource, make_app, settle
from tests.ui.script import Script


def history(n: int) -> Script:
    s = Script().start()
    for k in range(n):
        s.user(f"question {k}").assistant().text(f"answer {k}").end()
    return s.agent_end()


async def test_dom_stays_bounded_and_restores_on_scroll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ItemPane, "MAX_MOUNTED", 20)
    monkeypatch.setattr(ItemPane, "PRUNE_SLACK", 10)
    monkeypatch.setattr(ItemPane, "RESTORE_BATCH", 15)
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        s = history(60)
        for start in range(0, len(s.events), 25):  # arrive over many frames
            source.emit(s.events[start : start + 25])
            await settle(pilot)
        pane = app.query_one(ConversationView)
        assert pane.item_count == 120
        assert pane.mounted_count < 20 + 10
        mounted_before = pane.mounted_count
        pane.scroll_home(animate=False)
        await settle(pilot)
        await settle(pilot)
        assert pane.mounted_count == mounted_before + 15
        users = [w for w in pane.children if isinstance(w, UserMessage)]
        numbers = [int(str(w.content).split()[-1]) for w in users]
        assert numbers == sorted(numbers) and numbers[-1] == 59


async def test_scroll_lock_and_new_output_indicator() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        source.emit(history(20).events)
        await settle(pilot)
        pane = app.query_one(ConversationView)
        assert pane.scroll_y == pane.max_scroll_y > 0
        pane.scroll_home(animate=False)
        await settle(pilot)
        more = Script().start().user("new question").assistant().text("new answer").end()
        source.emit(more.agent_end().events)
        await settle(pilot)
        assert pane.scroll_y == 0  # did not jump while the user reads above
        assert pane.border_subtitle == "new output ↓"
        pane.scroll_end(animate=False)
        await settle(pilot)
        assert pane.border_subtitle == ""


async def test_a_flood_of_items_mounts_only_the_tail() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        source.emit(history(500).events)  # e.g. a resumed session, in one batch
        await settle(pilot)
        pane = app.query_one(ConversationView)
        assert pane.item_count == 1000
        assert pane.mounted_count == ItemPane.TAIL_WINDOW
        users = [w for w in pane.children if isinstance(w, UserMessage)]
        assert str(users[-1].content) == "question 499"
        marker = pane.query_one(".earlier-marker")
        assert marker.display and f"{1000 - ItemPane.TAIL_WINDOW} earlier items" in str(
            marker.render()
        )


async def test_the_tail_window_is_measured_after_its_layout() -> None:
    """The pane is measured once its new widgets are laid out, not at the first refresh
    callback: a loaded machine (here: a batch update holding the layout back) runs those
    callbacks before the layout, and the old measure mounted a batch too many."""
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        with app.batch_update():  # the screen runs refresh callbacks but lays nothing out
            source.emit(history(500).events)
            await settle(pilot)
            pane = app.query_one(ConversationView)
            assert pane.mounted_count == ItemPane.TAIL_WINDOW
        await settle(pilot)
        await settle(pilot)
        assert pane.mounted_count == ItemPane.TAIL_WINDOW
