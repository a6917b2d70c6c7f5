"""Compaction and branch summaries follow the ``retry`` settings (pi 1.6's
``completeSummarization``): the request's own retries and, while ``retry.enabled``, the
agent-level ones; checked through the session against a real 127.0.0.1 server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pitui.core.agent_session import AgentSession
from pitui.core.compaction.apply import NavigationError
from pitui.core.compaction.summarize import CompactionCancelled, CompactionError
from pitui.core.compaction.tokens import estimate_tokens
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.settings import Settings
from tests.replay_server import ReplayServer, Reply, write_fake_anthropic_models

OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


async def _session(tmp_path: Path, server: ReplayServer, retry: dict[str, Any]) -> AgentSession:
    """Two answered prompts, so that the first turn can be compacted or left."""
    write_fake_anthropic_models(server.url)
    settings = Settings.load({"retry": retry})
    session = await create_agent_session(
        SessionOptions(cwd=tmp_path, model="fake/claude-fake", settings=settings)
    )
    server.add(Reply.sse_file("anthropic_text.sse"), Reply.sse_file("anthropic_text.sse"))
    await session.prompt("first question")
    await session.prompt("second question")
    server.requests.clear()
    # Keep just the last turn: one summary request (a split turn would make two).
    reply = estimate_tokens(session.messages[-1])
    session.settings.compaction.keep_recent_tokens = reply + 1
    return session


NONE = {"enabled": False, "baseDelayMs": 1, "provider": {"maxRetries": 0}}
"""No retry of any kind: pitui's defaults would retry the request after 2 s."""
AGENT_ONLY = {"enabled": True, "maxRetries": 1, "baseDelayMs": 1, "provider": {"maxRetries": 0}}
REQUEST_ONLY = {"enabled": False, "baseDelayMs": 1, "provider": {"maxRetries": 1}}


@pytest.mark.parametrize(
    ("retry", "answered"), [(NONE, False), (AGENT_ONLY, True), (REQUEST_ONLY, True)]
)
async def test_compaction_follows_the_retry_settings(
    tmp_path: Path, replay_server: ReplayServer, retry: dict[str, Any], answered: bool
) -> None:
    session = await _session(tmp_path, replay_server, retry)
    replay_server.add(Reply.json_error(503, OVERLOADED), Reply.sse_file("anthropic_text.sse"))
    try:
        if answered:
            result = await session.compact()
            assert result.summary.startswith("Olá!")
        else:
            with pytest.raises(CompactionError, match=r"Summarization failed: .*Overloaded"):
                await session.compact()
    finally:
        await session.close()
    assert len(replay_server.requests) == (2 if answered else 1)


@pytest.mark.parametrize(("retry", "answered"), [(NONE, False), (AGENT_ONLY, True)])
async def test_branch_summary_follows_the_retry_settings(
    tmp_path: Path, replay_server: ReplayServer, retry: dict[str, Any], answered: bool
) -> None:
    session = await _session(tmp_path, replay_server, retry)
    first_user = next(e for e in session.store.get_entries() if e.type == "message")
    replay_server.add(Reply.json_error(503, OVERLOADED), Reply.sse_file("anthropic_text.sse"))
    try:
        if answered:
            assert await session.navigate(first_user.id, summarize=True) == "first question"
            assert session.store.get_entries()[-1].type == "branch_summary"
        else:
            with pytest.raises(NavigationError, match="Overloaded"):
                await session.navigate(first_user.id, summarize=True)
    finally:
        await session.close()
    assert len(replay_server.requests) == (2 if answered else 1)


async def test_esc_during_the_wait_cancels_the_compaction(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    """The agent-level wait is abortable: /compact's Esc does not sit out the back-off."""
    slow = {**AGENT_ONLY, "baseDelayMs": 60_000}
    session = await _session(tmp_path, replay_server, slow)
    replay_server.add(Reply.json_error(503, OVERLOADED))
    try:
        task = asyncio.create_task(session.compact())
        await asyncio.to_thread(replay_server.wait_sent, 1)
        await asyncio.sleep(0.05)
        session.abort_compaction()
        with pytest.raises(CompactionCancelled):
            await asyncio.wait_for(task, 5)
    finally:
        await session.close()
    assert len(replay_server.requests) == 1
