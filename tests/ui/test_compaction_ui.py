"""/compact in the TUI: the progress card, the written entry, the summary card and the
context figure; cancel (file byte-identical); pi's errors; auto-compaction's card with
its reason and the messages queued meanwhile; Ctrl+O and clicks on summary cards; the
small-window notice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pitui import paths
from pitui.core.agent_session import AgentSession
from pitui.core.messages import BranchSummaryMessage, CompactionSummaryMessage
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.commands import dispatch
from pitui.ui.live.session import LiveSession
from pitui.ui.screens.session_panel import SessionPanel
from pitui.ui.theme import discover_themes
from pitui.ui.view.progress import running
from pitui.ui.view.session_panel import sections_text
from pitui.ui.view.state import (
    BranchSummaryItem,
    CompactionItem,
    ProgressItem,
    ToolCardItem,
    UserItem,
)
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.messages import SummaryCard
from pitui.ui.widgets.status_bar import StatusBar
from tests.replay_server import ReplayServer, Reply, write_fake_anthropic_models
from tests.ui.command_support import (
    make_registry,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    submit,
    wait_until,
)
from tests.ui.script import Script


def _settings(**compaction: int) -> None:
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text(json.dumps({"compaction": compaction}))


def _fake_provider(base_url: str, **model: Any) -> None:
    write_fake_anthropic_models(base_url, **model)


async def _session(tmp: Path, **options: Any) -> AgentSession:
    return await create_agent_session(
        SessionOptions(cwd=tmp, session_dir=tmp / "sessions", **options)
    )


def _app(session: AgentSession) -> PituiApp:
    return PituiApp(live=LiveSession(session), themes=discover_themes([]))


def _kinds(session: AgentSession) -> list[str]:
    assert session.session_file is not None
    lines = session.session_file.read_text().splitlines()
    return [json.loads(line)["type"] for line in lines]


def _last_entry(session: AgentSession) -> dict[str, Any]:
    assert session.session_file is not None
    data: dict[str, Any] = json.loads(session.session_file.read_text().splitlines()[-1])
    return data


async def send(pilot: Pilot[None], text: str) -> None:
    """Submit ``text`` as the user would, without waiting for what it starts."""
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    composer.submit()
    await pilot.pause()


def said(app: PituiApp) -> list[str]:
    """Notices, and what ended progress cards say in their place."""
    texts = notices(app)
    texts += [i.outcome for i in app.chat.items if isinstance(i, ProgressItem) and i.outcome]
    return texts


def _context(app: PituiApp) -> str:
    return app.main.query_one(StatusBar).part("context")


async def _converse(pilot: Pilot[None], session: AgentSession, *texts: str) -> None:
    for text in texts:
        await submit(pilot, text)
        await wait_until(pilot, lambda: not session.is_streaming, "the reply")
        await settle(pilot)


async def test_compact_with_the_demo_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    _settings(keepRecentTokens=300)
    session = await _session(tmp_path, model="demo/demo")
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _converse(pilot, session, "hello there", "tell me more", "and more")
        assert "%" in _context(app)
        monkeypatch.setenv("PITUI_DEMO_PACE_MS", "20")  # the summary streams for a while
        await send(pilot, "/compact the greetings")
        await wait_until(pilot, lambda: running(app.chat, "compaction") is not None, "the card")
        card = running(app.chat, "compaction")
        assert card is not None and card.title == "Compacting context"
        assert card.detail == "Focus: the greetings" and card.cancel_hint == "Esc to cancel"
        await wait_until(pilot, lambda: _kinds(session)[-1] == "compaction", "the entry")
        await wait_until(pilot, lambda: isinstance(app.chat.items[-1], CompactionItem), "result")
        await settle(pilot)
        result = app.chat.items[-1]
        assert isinstance(result, CompactionItem) and not result.expanded
        entry = _last_entry(session)
        assert result.summary == entry["summary"] and result.tokens_before == entry["tokensBefore"]
        assert "## Goal" in entry["summary"] and "the greetings" in entry["summary"]
        assert running(app.chat, "compaction") is None
        assert _context(app).startswith("?/128k")
        assert isinstance(app.chat.items[0], CompactionItem)  # the rebuilt view starts with it
        await submit(pilot, "/session")
        panel = app.screen
        assert isinstance(panel, SessionPanel)
        assert "Context  ? / 128k" in sections_text(panel.sections())
        await pilot.press("escape")
        await settle(pilot)
        await submit(pilot, "/compact")
        assert said(app)[-1] == "Compaction failed: Already compacted"


async def test_compact_with_a_recorded_stream(tmp_path: Path, replay_server: ReplayServer) -> None:
    _fake_provider(replay_server.url)
    _settings(keepRecentTokens=1)
    replay_server.add(*[Reply.sse_file("anthropic_text.sse")] * 4)
    session = await _session(tmp_path, model="fake/claude-fake")
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _converse(pilot, session, "first", "second")
        await submit(pilot, "/compact")
        await wait_until(pilot, lambda: isinstance(app.chat.items[-1], CompactionItem), "result")
        assert _kinds(session)[-1] == "compaction"
        bodies = [r.json() for r in replay_server.requests[2:]]
        assert len(bodies) == 2  # a split turn: history and turn prefix
        assert all("context summarization" in b["system"][0]["text"] for b in bodies)
        card = app.chat.items[-1]
        assert isinstance(card, CompactionItem) and card.summary.startswith("Olá!")
        assert _context(app).startswith("?/")


async def test_escape_cancels_and_nothing_is_written(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _fake_provider(replay_server.url)
    _settings(keepRecentTokens=1)
    replay_server.add(Reply.sse_file("anthropic_text.sse"), Reply.sse_file("anthropic_text.sse"))
    slow = Reply.sse_file("anthropic_text.sse", chunk_size=40, delay_s=0.3)
    replay_server.add(slow, Reply.sse_file("anthropic_text.sse", chunk_size=40, delay_s=0.3))
    session = await _session(tmp_path, model="fake/claude-fake")
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _converse(pilot, session, "first", "second")
        assert session.session_file is not None
        before = session.session_file.read_bytes()
        dispatch.run(app, "/compact")
        await wait_until(pilot, lambda: len(replay_server.requests) >= 3, "the summary request")
        assert running(app.chat, "compaction") is not None
        await pilot.press("escape")
        await wait_until(pilot, lambda: "Compaction cancelled" in said(app), "the cancel")
        await settle(pilot)
        assert session.session_file.read_bytes() == before
        assert running(app.chat, "compaction") is None and not session.compaction.is_compacting


async def test_nothing_to_compact_on_a_two_message_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    session = await _session(tmp_path, model="demo/demo")
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _converse(pilot, session, "hello")
        assert session.session_file is not None
        before = session.session_file.read_bytes()
        await submit(pilot, "/compact")
        await settle(pilot)
        assert said(app)[-1] == "Compaction failed: Nothing to compact (session too small)"
        assert session.session_file.read_bytes() == before
        assert running(app.chat, "compaction") is None


async def test_no_api_key_is_worded_as_pi(tmp_path: Path) -> None:
    registry = make_registry()
    registry.auth.set_runtime_api_key("fakeco", "")
    session = await _session(tmp_path, model="fakeco/fake-1", registry=registry)
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/compact")
        assert said(app)[-1] == "Compaction failed: No API key for fakeco"


async def test_auto_compaction_shows_the_card_and_delivers_queued_messages(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _fake_provider(replay_server.url, contextWindow=400)
    _settings(reserveTokens=200, keepRecentTokens=1)
    recorded = Reply.sse_file("anthropic_text.sse").body

    def reply(input_tokens: int, **pace: Any) -> Reply:
        usage = f'"input_tokens":{input_tokens}'.encode()
        return Reply(body=recorded.replace(b'"input_tokens":16', usage), **pace)

    replay_server.add(reply(100), reply(200))  # 138 tokens, then 238 > 200: compaction
    slow = {"chunk_size": 500, "delay_s": 0.2}
    replay_server.add(reply(1, **slow), reply(1, **slow))  # history and turn-prefix summaries
    replay_server.add(reply(1))  # the reply to the queued message
    session = await _session(tmp_path, model="fake/claude-fake")
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _converse(pilot, session, "first")
        await send(pilot, "second")  # 238 > 200: a threshold compaction follows the reply
        await wait_until(pilot, lambda: running(app.chat, "compaction") is not None, "the card")
        card = running(app.chat, "compaction")
        assert card is not None and card.title == "Auto-compacting context"
        await send(pilot, "queued meanwhile")
        await pilot.pause()
        assert app.chat.follow_up == ("queued meanwhile",)
        await wait_until(
            pilot,
            lambda: any(isinstance(i, UserItem) and i.text == "queued meanwhile"
                        for i in app.chat.items),
            "the queued message delivered",
        )  # fmt: skip
        await wait_until(pilot, lambda: not session.is_streaming, "its reply")
        await settle(pilot)
        assert any(isinstance(i, CompactionItem) for i in app.chat.items)
        assert not app.chat.follow_up
        texts = [r.json()["messages"][-1]["content"][-1].get("text") for r in
                 replay_server.requests]  # fmt: skip
        assert "queued meanwhile" in texts


async def test_ctrl_o_and_clicks_open_summary_cards(tmp_path: Path) -> None:
    from tests.ui.harness import FeedSource, make_app, wait_subscribed

    source = FeedSource()
    app = make_app(source)
    compaction = CompactionSummaryMessage(summary="## Goal\nPort it", tokens_before=182_340)
    branch = BranchSummaryMessage(summary="Tried YAML.", from_id="abc")
    script = Script().custom(compaction).custom(branch).start().user("go")
    script.assistant().tool_call("c1", "ls", {}).end("toolUse").tool_start("c1", "ls", {})
    script.tool_end("c1", "ls", "a\nb")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_subscribed(pilot, source)
        source.emit(script.agent_end().events)
        await settle(pilot)

        def opened() -> list[bool]:
            kinds = (CompactionItem, BranchSummaryItem, ToolCardItem)
            return [i.expanded for i in app.chat.items if isinstance(i, kinds)]

        assert opened() == [False, False, False]
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert opened() == [True, True, True]
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert opened() == [False, False, False]
        card = app.main.conversation.query(SummaryCard).first()
        assert "Compacted from 182,340 tokens (ctrl+o to expand)" in str(card.render())
        await pilot.click(SummaryCard)
        await settle(pilot)
        assert opened()[0] is True


async def test_a_small_window_is_announced_once(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _fake_provider(replay_server.url, contextWindow=8192)
    replay_server.add(Reply.sse_file("anthropic_text.sse"), Reply.sse_file("anthropic_text.sse"))
    session = await _session(tmp_path, model="fake/claude-fake")
    app = _app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _converse(pilot, session, "first", "second")
        said = [n for n in notices(app) if n.startswith("Context window of 8,192 tokens")]
        assert said == [
            "Context window of 8,192 tokens is small for the compaction settings "
            "(reserveTokens 16,384, keepRecentTokens 20,000): compacting at 4,096 tokens and "
            "keeping the last 2,048."
        ]
        assert "compaction" not in _kinds(session)
