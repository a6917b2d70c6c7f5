"""Pilot tests: the app fed with recorded AgentEvents through the bridge."""

from __future__ import annotations

from textual.message import Message

from pitui.ui.app import PituiApp
from pitui.ui.live.bridge import AgentEventBatch
from pitui.ui.live.session import NO_SESSION_NOTICE
from pitui.ui.theme import discover_themes
from pitui.ui.view.state import NoticeItem
from pitui.ui.widgets.assistant_text import AssistantMarkdown
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.messages import ThinkingBlock, ToolRef
from pitui.ui.widgets.notice_line import NoticeLine
from pitui.ui.widgets.status_bar import StatusBar
from pitui.ui.widgets.tool_card import ToolCard
from tests.ui.harness import FeedSource, make_app, settle
from tests.ui.script import Script, demo_conversation


async def test_streaming_reply_updates_one_widget_in_batches() -> None:
    source = FeedSource()
    app = make_app(source)
    batches: list[AgentEventBatch] = []

    def hook(message: Message) -> None:
        if isinstance(message, AgentEventBatch):
            batches.append(message)

    s = Script().start().user("hi").assistant().text(*[f"w{n} " for n in range(40)], end=False)
    async with app.run_test(size=(120, 36), message_hook=hook) as pilot:
        source.emit(s.events[:10])
        await settle(pilot)
        replies = list(app.query(AssistantMarkdown))
        assert len(replies) == 1
        first = replies[0]
        source.emit(s.events[10:])
        await settle(pilot)
        assert list(app.query(AssistantMarkdown)) == [first]
        assert first.shown_text == "".join(f"w{n} " for n in range(40))
        assert first.has_class("-streaming")
        end = Script()
        end.partial = s.partial
        end.end().agent_end()
        source.emit(end.events)
        await settle(pilot)
        assert list(app.query(AssistantMarkdown)) == [first]
        assert not first.has_class("-streaming")
    # Many events, few messages: the bridge batches per frame.
    assert sum(len(b.events) for b in batches) == len(s.events) + 2
    assert len(batches) < 10


async def test_tool_card_lifecycle() -> None:
    source = FeedSource()
    app = make_app(source)
    s = Script().start().user("q").assistant().tool_call("c1", "bash", {"command": "ls"})
    s.end("toolUse")
    streamed = len(s.events)
    s.tool_start("c1", "bash", {"command": "ls"}).tool_update("c1", "bash", "a\n")
    running = len(s.events)
    s.tool_end("c1", "bash", "a\nb").agent_end()
    async with app.run_test(size=(120, 36)) as pilot:
        source.emit(s.events[:streamed])
        await settle(pilot)
        cards = list(app.query(ToolCard))
        assert len(cards) == 1 and cards[0].has_class("-pending")
        source.emit(s.events[streamed:running])
        await settle(pilot)
        assert list(app.query(ToolCard)) == cards and cards[0].has_class("-running")
        source.emit(s.events[running:])
        await settle(pilot)
        assert list(app.query(ToolCard)) == cards and cards[0].has_class("-success")
        assert len(app.query(ToolRef)) == 1
        card = cards[0]
        assert str(card.content).endswith("\n\na\nb")  # header, blank line, body
        await pilot.click(card)
        await pilot.pause()
        assert card.has_class("-expanded")


async def test_abort_shows_pi_wording() -> None:
    source = FeedSource()
    app = make_app(source)
    s = Script().start().user("q").assistant().text("part", end=False)
    s.end("aborted", "Request was aborted").agent_end()
    async with app.run_test(size=(80, 24)) as pilot:
        source.emit(s.events)
        await settle(pilot)
        notices = list(app.query(NoticeLine))
        assert [str(n.content) for n in notices] == ["Operation aborted"]
        assert notices[0].has_class("-error")


async def test_narrow_layout_collapses_tool_pane() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        source.emit(demo_conversation())
        await settle(pilot)
        tools = app.query_one("#tools")
        conversation = app.query_one("#conversation-box")
        assert app.screen.has_class("-narrow")
        assert not tools.display or tools.region.width == 0
        await pilot.press("f2")
        await pilot.pause()
        assert tools.region.width == 80 - 0 and conversation.region.width == 0
        await pilot.press("f2")
        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert app.screen.has_class("-widest")  # three panes side by side
        branches = app.query_one("#branches")
        assert tools.region.width > 28 and branches.region.width > 28
        assert conversation.region.width > 50
        assert branches.region.x > tools.region.x > conversation.region.x
        for widget in (app.query_one("#composer"), app.query_one("#status")):
            assert widget.region.right <= 120


async def test_nothing_cut_off_at_80x24() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        source.emit(demo_conversation())
        await settle(pilot)
        for selector in ("#composer", "#status"):
            region = app.query_one(selector).region
            assert region.width > 0 and region.right <= 80 and region.bottom <= 24
        assert app.query_one(StatusBar).part("context") == "2.9%/200k (auto)"


async def test_toggle_thinking_key() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(120, 36)) as pilot:
        source.emit(demo_conversation())
        await settle(pilot)
        block = app.query_one(ThinkingBlock)
        assert "Thinking · 1 line" in str(block.content)
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "The user wants the port changed. Read first." in str(block.content)


async def test_tool_output_control_sequences_are_inert() -> None:
    source = FeedSource()
    app = make_app(source)
    nasty = "ok\x1b]52;c;SGVsbG8=\x07 line\n\x1b[2J\x1b[H\x1b[31mred\x1b[0m\x1b[5A up\r\n\x9b31mc1"
    s = Script().start().user("q").assistant().tool_call("c1", "bash", {"command": "x\x1b[2J"})
    s.end("toolUse").tool_start("c1", "bash", {"command": "x"}).tool_end("c1", "bash", nasty)
    s.assistant().text("reply \x1b]52;c;ZXZpbA==\x1b\\done").end().agent_end()
    async with app.run_test(size=(120, 36)) as pilot:
        source.emit(s.events)
        await settle(pilot)
        card = app.query_one(ToolCard)
        texts = [str(card.content)]
        texts += [str(w.content) for w in app.query(ToolRef)]
        reply = app.query(AssistantMarkdown).last()
        texts.append(reply.shown_text)
        for text in texts:
            assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
            assert "52;c" not in text and "\r" not in text
        assert any(text.endswith("ok line\nred up\nc1") for text in texts)
        assert reply.shown_text == "reply done"


async def test_no_session_shows_notice_and_composer_posts_intent() -> None:
    app = PituiApp(themes=discover_themes([]))
    submitted: list[Composer.Submitted] = []

    def hook(message: Message) -> None:
        # The hook sees a bubbling message at every hop: keep each once.
        if isinstance(message, Composer.Submitted) and all(m is not message for m in submitted):
            submitted.append(message)

    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await settle(pilot)
        notices = [i for i in app.chat.items if isinstance(i, NoticeItem)]
        assert [n.text for n in notices] == [NO_SESSION_NOTICE]
        await pilot.press("h", "i", "shift+enter", "x")
        composer = app.query_one(Composer)
        assert composer.text == "hi\nx"
        await pilot.press("enter")
        await pilot.pause()
        assert [m.text for m in submitted] == ["hi\nx"] and composer.text == ""
        await pilot.press("up")
        assert composer.text == "hi\nx"


async def test_bad_theme_is_reported_not_fatal(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    (tmp_path / "bad.json").write_text('{"name": "bad", "colors": {}}')
    app = PituiApp(themes=discover_themes([tmp_path]), theme_name="light")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == "pi-light"
        texts = [i.text for i in app.chat.items if isinstance(i, NoticeItem)]
        assert any("bad.json" in t and "missing colour token" in t for t in texts)


async def test_switch_theme() -> None:
    app = PituiApp(themes=discover_themes([]), theme_name="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == "pi-dark"
        dark_bg = app.query_one("#composer").styles.background
        assert app.switch_theme("light") and app.theme == "pi-light"
        await pilot.pause()
        assert app.query_one("#composer").styles.background != dark_bg
        assert app.theme_variables["pi-toolSuccessBg"] == "#e8f0e8"
        assert not app.switch_theme("nope") and app.theme == "pi-light"


async def test_a_token_on_the_same_line_repaints_the_tail_without_a_layout() -> None:
    """Most tokens end on the line already there: the tail is drawn again, but the screen
    is not laid out (a layout places every widget of the screen again); a token that
    starts a new line lays it out, and the tail grows."""
    from typing import Any

    from pitui.ui.widgets.assistant_text import _LiveTail

    source = FeedSource()
    app = make_app(source)
    s = Script().start().user("hi").assistant().text("alpha ", "beta ", "\n\ngamma", end=False)
    async with app.run_test(size=(120, 36)) as pilot:
        source.emit(s.events[:-2])
        await settle(pilot)
        tail = app.query_one(_LiveTail)
        height = tail.size.height
        layouts: list[object] = []
        screen: Any = app.screen
        laid_out = screen._refresh_layout

        def counted(*args: object, **kwargs: object) -> None:
            layouts.append(args)
            laid_out(*args, **kwargs)

        screen._refresh_layout = counted
        source.emit(s.events[-2:-1])
        await settle(pilot)
        assert tail.render_line(0).text.startswith("alpha beta")
        assert tail.size.height == height and layouts == []
        source.emit(s.events[-1:])
        await settle(pilot)
        assert tail.size.height == height + 2 and layouts
        assert tail.render_line(height + 1).text.startswith("gamma")
