"""A request's own retries follow the ``retry`` settings, as the session's retries do:
one retry policy (``baseDelayMs``, ``maxDelayMs``, ``provider.maxRetries``), checked
against a real 127.0.0.1 server that fails and then answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ai.options import RetryPolicy
from pitui.ai.types import AssistantMessage
from pitui.core.retry import provider_retry_policy
from pitui.core.session_events import SessionEvent
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.settings import Settings
from tests.replay_server import ReplayServer, Reply, write_fake_anthropic_models

OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def test_the_policy_is_the_settings() -> None:
    assert provider_retry_policy(Settings().retry) == RetryPolicy()
    settings = Settings.load(
        {"retry": {"baseDelayMs": 250, "maxDelayMs": 5000, "provider": {"maxRetries": 4}}}
    )
    assert provider_retry_policy(settings.retry) == RetryPolicy(
        max_attempts=5, base_delay_ms=250, max_delay_ms=5000
    )
    newer = Settings.load({"retry": {"provider": {"maxRetryDelayMs": 0}}})  # pi 1.6's name
    assert provider_retry_policy(newer.retry).max_delay_ms == 0


async def _prompt(tmp_path: Path, server: ReplayServer, retry: dict[str, object]) -> list[str]:
    """One prompt answered in the end; the session's retry events meanwhile."""
    write_fake_anthropic_models(server.url)
    settings = Settings.load({"retry": retry})
    session = await create_agent_session(
        SessionOptions(cwd=tmp_path, model="fake/claude-fake", settings=settings)
    )
    events: list[SessionEvent] = []
    session.subscribe(events.append)
    try:
        await session.prompt("hello")
        last = session.messages[-1]
        assert isinstance(last, AssistantMessage) and last.stop_reason == "stop"
    finally:
        await session.close()
    return [e.type for e in events if e.type.startswith("auto_retry")]


def _gap(server: ReplayServer) -> float:
    first, second = server.requests[:2]
    return second.received_at - first.received_at


@pytest.mark.parametrize("status", [503, 529, 429])
async def test_a_failed_request_is_retried_after_retry_base_delay_ms(
    tmp_path: Path, replay_server: ReplayServer, status: int
) -> None:
    """1.5 s from the settings: more than the fixed 1 s the request used to wait (with
    its jitter, at least 0.75 × 1.5 s), and the session's own retry is not needed."""
    replay_server.add(Reply.json_error(status, OVERLOADED), Reply.sse_file("anthropic_text.sse"))
    assert await _prompt(tmp_path, replay_server, {"baseDelayMs": 1500}) == []
    assert len(replay_server.requests) == 2
    assert _gap(replay_server) >= 0.75 * 1.5


async def test_retry_after_is_the_servers_and_capped_by_max_delay_ms(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(
        Reply.json_error(429, OVERLOADED, headers={"retry-after-ms": "400"}),
        Reply.sse_file("anthropic_text.sse"),
    )
    assert await _prompt(tmp_path, replay_server, {"baseDelayMs": 1}) == []
    assert _gap(replay_server) >= 0.4
    # More than maxDelayMs: the request is not retried; the session's retry (after
    # baseDelayMs) runs the turn again.
    replay_server.requests.clear()
    replay_server.add(
        Reply.json_error(429, OVERLOADED, headers={"retry-after": "30"}),
        Reply.sse_file("anthropic_text.sse"),
    )
    retried = await _prompt(tmp_path, replay_server, {"baseDelayMs": 1, "maxDelayMs": 1000})
    assert retried == ["auto_retry_start", "auto_retry_end"]
    assert len(replay_server.requests) == 2


async def test_no_request_retries_with_provider_max_retries_zero(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    """pi 1.6's default: the session's retry alone runs the turn again."""
    replay_server.add(Reply.json_error(503, OVERLOADED), Reply.sse_file("anthropic_text.sse"))
    retry = {"baseDelayMs": 1, "provider": {"maxRetries": 0}}
    assert await _prompt(tmp_path, replay_server, retry) == ["auto_retry_start", "auto_retry_end"]
    assert len(replay_server.requests) == 2


async def _prompt_last(tmp_path: Path, server: ReplayServer, retry: dict[str, object]) -> str:
    """The stop reason of one prompt's last reply (answered or not)."""
    write_fake_anthropic_models(server.url)
    settings = Settings.load({"retry": retry})
    session = await create_agent_session(
        SessionOptions(cwd=tmp_path, model="fake/claude-fake", settings=settings)
    )
    try:
        await session.prompt("hello")
        last = session.messages[-1]
        assert isinstance(last, AssistantMessage)
        return last.stop_reason
    finally:
        await session.close()


async def test_retry_enabled_covers_the_sessions_retries_only(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    """pi 1.6's settings.md: ``retry.enabled`` is "automatic agent-level retry"; the
    request's own retries are ``retry.provider.maxRetries`` whatever ``enabled`` says
    (pi's sdk.js passes the provider settings to every request unconditionally)."""
    off = {"enabled": False, "baseDelayMs": 1}
    assert provider_retry_policy(Settings.load({"retry": off}).retry) == RetryPolicy(
        base_delay_ms=1
    )
    replay_server.add(Reply.json_error(503, OVERLOADED))
    no_request_retries = {**off, "provider": {"maxRetries": 0}}
    assert await _prompt_last(tmp_path, replay_server, no_request_retries) == "error"
    assert len(replay_server.requests) == 1  # the session did not run the turn again
    replay_server.requests.clear()
    replay_server.add(Reply.json_error(503, OVERLOADED), Reply.sse_file("anthropic_text.sse"))
    one_request_retry = {**off, "provider": {"maxRetries": 1}}
    assert await _prompt_last(tmp_path, replay_server, one_request_retry) == "stop"
    assert len(replay_server.requests) == 2
