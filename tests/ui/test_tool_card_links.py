"""Tool cards: a waiting edit previews its diff; picking a card highlights its message."""

from __future__ import annotations

from pathlib import Path

from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.assistant_text import AssistantMarkdown
from pitui.ui.widgets.conversation import ConversationView
from pitui.ui.widgets.messages import ToolRef
from pitui.ui.widgets.tool_card import ToolCard
from tests.ui.harness import FeedSource, make_app, settle, wait_subscribed
from tests.ui.script import Script, demo_conversation


async def test_pending_edit_card_previews_its_diff(tmp_path: Path) -> None:
    (tmp_path / "config.ts").write_text("const host = 'x';\nconst port = 3000;\n")
    source = FeedSource()
    app = make_app(source, SessionInfo(cwd=str(tmp_path)))
    args = {"path": "config.ts", "oldText": "port = 3000", "newText": "port = 8080"}
    s = Script().start().user("change the port").assistant()
    s.tool_call("c1", "edit", args).end("toolUse")  # the call is complete, not yet run
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_subscribed(pilot, source)
        source.emit(s.events)
        await settle(pilot)
        card = app.query_one(ToolCard)
        assert card.has_class("-pending")
        text = str(card.content)
        assert "-2 const port = 3000;" in text and "+2 const port = 8080;" in text
        assert (tmp_path / "config.ts").read_text().endswith("3000;\n")  # nothing written


async def test_pending_edit_without_a_match_shows_no_preview(tmp_path: Path) -> None:
    (tmp_path / "config.ts").write_text("const port = 3000;\n")
    source = FeedSource()
    app = make_app(source, SessionInfo(cwd=str(tmp_path)))
    args = {"path": "config.ts", "oldText": "missing", "newText": "x"}
    s = Script().start().user("edit").assistant().tool_call("c1", "edit", args).end("toolUse")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_subscribed(pilot, source)
        source.emit(s.events)
        await settle(pilot)
        assert str(app.query_one(ToolCard).content).strip() == "○ edit config.ts"


async def test_picking_a_card_highlights_the_message_that_made_the_call() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_subscribed(pilot, source)
        source.emit(demo_conversation())
        await settle(pilot)
        cards = {c.item.tool_call_id: c for c in app.query(ToolCard)}
        await pilot.click(cards["call_2"])
        await settle(pilot)
        assert cards["call_2"].has_class("-selected")
        assert not cards["call_1"].has_class("-selected")
        pane = app.query_one(ConversationView)
        lit = {
            w.shown_text if isinstance(w, AssistantMarkdown) else str(w.content)
            for w in pane.query(".-highlight")
            if isinstance(w, AssistantMarkdown | ToolRef)
        }
        assert "Now the edit." in lit
        assert any("edit" in t for t in lit) and any("npm test" in t for t in lit)
        assert "I'll read the file first." not in lit
        # Clicking a tool reference in the conversation picks its card.
        refs = [r for r in pane.query(ToolRef) if "read" in str(r.content)]
        await pilot.click(refs[0])
        await settle(pilot)
        assert cards["call_1"].has_class("-selected")
        assert not cards["call_2"].has_class("-selected")
