"""AgentSession with compaction: manual /compact, overflow recovery on a loopback server,
navigation with a summary, and resume reproducing the same context."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.ai.types import AssistantMessage
from pitui.core.agent_session import AgentSession
from pitui.core.compaction.summarize import CompactionCancelled, CompactionError
from pitui.core.messages import BranchSummaryMessage, CompactionSummaryMessage, convert_to_llm
from pitui.core.session_compaction import OVERFLOW_RECOVERY_FAILED
from pitui.core.session_events import (
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    SessionChangedEvent,
    SessionEvent,
    SessionNoticeEvent,
)
from pitui.core.session_setup import SessionOptions, create_agent_session
from tests.replay_server import ReplayServer, Reply, write_fake_anthropic_models


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _models_json(base_url: str, **model: Any) -> None:
    write_fake_anthropic_models(base_url, **model)


def _compaction_settings(**compaction: int) -> None:
    """Global settings with these ``compaction`` values (pi's key names)."""
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text(json.dumps({"compaction": compaction}))


def _tiny_window_models(base_url: str) -> None:
    """A model whose 54-token replies are over the threshold (window 64 − reserve 16)."""
    _models_json(base_url, contextWindow=64)
    _compaction_settings(reserveTokens=16, keepRecentTokens=1)


async def _session(cwd: Path, **kw: Any) -> tuple[AgentSession, list[SessionEvent]]:
    session = await create_agent_session(SessionOptions(cwd=cwd, **kw))
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    return session, events


def _file_kinds(session: AgentSession) -> list[str]:
    assert session.session_file is not None
    lines = session.session_file.read_text().splitlines()
    return [
        e["type"] if e["type"] != "message" else e["message"]["role"]
        for e in map(json.loads, lines)
    ]


async def test_manual_compaction_with_the_demo_model(tmp_path: Path) -> None:
    _compaction_settings(keepRecentTokens=300)  # keeps about the last demo reply
    session, events = await _session(tmp_path)
    for text in ("hello there", "tell me more", "and more"):
        await session.prompt(text)
    result = await session.compact("focus on greetings")
    assert result.first_kept_entry_id
    assert isinstance(session.messages[0], CompactionSummaryMessage)
    assert session.messages[0].summary == result.summary
    assert _file_kinds(session)[-1] == "compaction"
    assert any(isinstance(e, SessionChangedEvent) and e.kind == "compaction" for e in events)
    assert not any(isinstance(e, AutoCompactionStartEvent) for e in events)
    with pytest.raises(CompactionError, match=r"^Already compacted$"):
        await session.compact()
    await session.prompt("after the compaction")  # the model sees the summary first
    assert isinstance(session.messages[0], CompactionSummaryMessage)
    await session.close()


async def test_overflow_is_compacted_and_retried_once(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _models_json(replay_server.url)
    _compaction_settings(keepRecentTokens=1)
    replay_server.add(
        Reply.sse_file("anthropic_text.sse"),  # the first turn (what gets summarised)
        Reply.json_error(400, "anthropic_error_400_context.json"),
        Reply.sse_file("anthropic_text.sse"),  # the summary
        Reply.sse_file("anthropic_text.sse"),  # the retried reply
    )
    session, events = await _session(tmp_path, model="fake/claude-fake")
    await session.prompt("hello")
    await session.prompt("a very long prompt")
    starts = [e for e in events if isinstance(e, AutoCompactionStartEvent)]
    ends = [e for e in events if isinstance(e, AutoCompactionEndEvent)]
    assert [e.reason for e in starts] == ["overflow"]
    assert len(ends) == 1 and ends[0].will_retry and ends[0].result is not None
    assert len(replay_server.requests) == 4
    assert _file_kinds(session)[-4:] == ["user", "assistant", "compaction", "assistant"]
    roles = [m.role for m in session.messages]
    assert roles == ["compactionSummary", "user", "assistant"]
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "stop"
    retried = replay_server.requests[3].json()["messages"]
    assert retried[0]["content"][0]["text"].startswith("The conversation history before")
    await session.close()


async def test_second_overflow_gives_pi_message(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _models_json(replay_server.url)
    _compaction_settings(keepRecentTokens=1)
    replay_server.add(
        Reply.sse_file("anthropic_text.sse"),
        Reply.json_error(400, "anthropic_error_400_context.json"),
        Reply.sse_file("anthropic_text.sse"),
        Reply.json_error(400, "anthropic_error_400_context.json"),
    )
    session, events = await _session(tmp_path, model="fake/claude-fake")
    await session.prompt("hello")
    await session.prompt("a very long prompt")
    ends = [e for e in events if isinstance(e, AutoCompactionEndEvent)]
    assert [e.error_message for e in ends] == [None, OVERFLOW_RECOVERY_FAILED]
    assert len(replay_server.requests) == 4
    await session.close()


async def test_navigate_with_summary_then_resume(tmp_path: Path) -> None:
    session, _ = await _session(tmp_path)
    await session.prompt("first topic")
    first_reply = session.store.get_leaf_id()
    await session.prompt("second topic")
    await session.prompt("third topic")
    assert first_reply is not None
    editor = await session.navigate(first_reply, summarize=True, label="back")
    assert editor is None
    summaries = [m for m in session.messages if isinstance(m, BranchSummaryMessage)]
    assert len(summaries) == 1 and summaries[0].from_id == first_reply
    seen = convert_to_llm(session.messages)[-1]
    assert "<summary>" in json.dumps(seen.to_json_dict())
    assert "branch_summary" in _file_kinds(session)
    await session.prompt("new direction")
    before = [m.to_json_dict() for m in session.messages]
    path = session.session_file
    await session.close()
    resumed, _ = await _session(tmp_path, session_file=path)
    assert [m.to_json_dict() for m in resumed.messages] == before
    await resumed.close()


def _reply_with_input_tokens(tokens: int) -> Reply:
    """The recorded text reply, reporting ``tokens`` input tokens (16 in the recording)."""
    reply = Reply.sse_file("anthropic_text.sse")
    reply.body = reply.body.replace(b'"input_tokens":16', f'"input_tokens":{tokens}'.encode())
    return reply


async def test_threshold_compaction_and_stale_usage(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _models_json(replay_server.url, contextWindow=400)
    _compaction_settings(reserveTokens=200, keepRecentTokens=1)  # threshold 200
    for _ in range(3):
        replay_server.add(_reply_with_input_tokens(200))  # 238 tokens
    # "third", then the two summaries of a split turn (history and turn prefix)
    replay_server.add(_reply_with_input_tokens(300), *[_reply_with_input_tokens(200)] * 2)
    session, events = await _session(tmp_path, model="fake/claude-fake")
    await session.prompt("first")  # 238 > 200: compacted
    await session.prompt("second")  # 238 again: that compaction gained nothing, not retried
    await session.prompt("third")  # 338: the context grew, compacted again
    starts = [e for e in events if isinstance(e, AutoCompactionStartEvent)]
    ends = [e for e in events if isinstance(e, AutoCompactionEndEvent)]
    assert [e.reason for e in starts] == ["threshold", "threshold"]
    assert all(e.result is not None and not e.will_retry for e in ends)
    # The pre-compaction usage kept in context did not trigger a compaction before
    # "second" was sent: request 3 is the reply to it, not a summary.
    requests = [r.json()["messages"][-1]["content"][-1]["text"] for r in replay_server.requests]
    assert requests[0] == "first" and requests[2] == "second" and requests[3] == "third"
    assert len(replay_server.requests) == 6
    assert _file_kinds(session).count("compaction") == 2
    await session.close()


async def test_a_window_below_the_reserve_does_not_compact_every_turn(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    """8,192 ≤ reserveTokens (16,384): pi's threshold is negative (every turn compacts);
    pitui compacts at half the window and says so once."""
    _models_json(replay_server.url, contextWindow=8192)
    for _ in range(3):
        replay_server.add(Reply.sse_file("anthropic_text.sse"))
    session, events = await _session(tmp_path, model="fake/claude-fake")
    for text in ("first", "second", "third"):
        await session.prompt(text)
    assert not any(isinstance(e, AutoCompactionStartEvent) for e in events)
    assert len(replay_server.requests) == 3 and "compaction" not in _file_kinds(session)
    notices = [e.message for e in events if isinstance(e, SessionNoticeEvent)]
    assert notices == [
        "Context window of 8,192 tokens is small for the compaction settings (reserveTokens "
        "16,384, keepRecentTokens 20,000): compacting at 4,096 tokens and keeping the last "
        "2,048."
    ]
    fitted = await session.compaction.fitted_settings()
    assert (fitted.threshold, fitted.settings.keep_recent_tokens) == (4096, 2048)
    await session.close()


async def test_manual_compaction_can_be_cancelled(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _models_json(replay_server.url)
    _compaction_settings(keepRecentTokens=1)
    replay_server.add(
        Reply.sse_file("anthropic_text.sse"),
        Reply.sse_file("anthropic_text.sse"),
        # A split turn: history and turn-prefix summaries, both slow.
        Reply.sse_file("anthropic_text.sse", chunk_size=40, delay_s=0.3),
        Reply.sse_file("anthropic_text.sse", chunk_size=40, delay_s=0.3),
    )
    session, _ = await _session(tmp_path, model="fake/claude-fake")
    await session.prompt("hello")
    await session.prompt("again")
    assert session.session_file is not None
    before = session.session_file.read_bytes()
    task = asyncio.create_task(session.compact())
    # Both summaries may be asked for between two looks: "== 3" waited out all 10 s then.
    for _ in range(1000):
        if len(replay_server.requests) >= 3:
            break
        await asyncio.sleep(0.01)
    assert session.compaction.is_compacting
    session.abort_compaction()
    with pytest.raises(CompactionCancelled, match=r"^Compaction cancelled$"):
        await task
    assert session.session_file.read_bytes() == before
    assert not session.compaction.is_compacting
    await session.close()


async def test_threshold_compaction_continues_with_queued_messages(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    """Edge case 36: messages queued meanwhile are delivered by continue() afterwards."""
    _tiny_window_models(replay_server.url)
    for _ in range(6):
        replay_server.add(Reply.sse_file("anthropic_text.sse"))
    session, events = await _session(tmp_path, model="fake/claude-fake")
    queued: list[str] = []

    def queue_during_compaction(event: SessionEvent) -> None:
        if isinstance(event, AutoCompactionStartEvent) and not queued:
            queued.append("later")
            session.follow_up("later")

    session.subscribe(queue_during_compaction)
    await session.prompt("first")
    await session.wait_for_idle()
    for _ in range(100):  # the continue() runs 100 ms after the compaction
        if len(replay_server.requests) >= 3:
            break
        await asyncio.sleep(0.05)
    await session.wait_for_idle()
    last_user_texts = [
        r.json()["messages"][-1]["content"][-1].get("text") for r in replay_server.requests
    ]
    assert "later" in last_user_texts
    assert not session.agent.has_queued_messages()
    assert len([e for e in events if isinstance(e, AutoCompactionStartEvent)]) >= 1
    await session.close()
