"""``pitui -p`` against a loopback server when things go wrong: nothing is lost or silent."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.modes.loopback import ANTHROPIC_TEXT, messages, run_pitui, session_lines, write_models
from tests.replay_server import ReplayServer, Reply

# The first text delta of the fixture ends "That"; cut the stream just after it.
_CUT = ANTHROPIC_TEXT.index(b"event: content_block_stop")
_OVERLOADED = (
    b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
    b'"message":"Overloaded"}}\n\n'
)
_DOWN = {"type": "error", "error": {"type": "api_error", "message": "upstream down"}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def test_text_streamed_before_a_dropped_connection_is_printed(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    first_delta = ANTHROPIC_TEXT.index(b"That") + 10
    replay_server.add(Reply(body=ANTHROPIC_TEXT, drop_after=first_delta))
    write_models(pitui_home, replay_server)
    result = run_pitui(project, "-p", "--model", "loop/tiny", "hello")
    assert result.returncode == 1
    assert result.stdout.startswith("Olá!")
    assert "connection closed early" in result.stderr
    assert "Traceback" not in result.stderr


def test_after_retries_the_error_names_the_first_failure_and_the_last(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply(body=ANTHROPIC_TEXT[:_CUT] + _OVERLOADED))
    # Retry-After: 0, or each attempt's own retries back off 1 s and 2 s (what is tested is
    # the message after the retries, not the wait between them).
    down = [Reply.json_error(503, _DOWN, headers={"retry-after": "0"}) for _ in range(20)]
    replay_server.add(*down)
    write_models(pitui_home, replay_server)
    result = run_pitui(project, "-p", "--model", "loop/tiny", "hello")
    assert result.returncode == 1
    assert result.stdout.startswith('Olá! (That\'s "hi" in Portuguese)')
    assert result.stderr.strip() == (
        "overloaded_error: Overloaded (after 3 retries, the last failed with: 503 upstream down)"
    )
    replies = [m for m in messages(session_lines(pitui_home)) if m["role"] == "assistant"]
    assert [m["stopReason"] for m in replies] == ["error"] * 4


def test_a_retry_that_succeeds_prints_only_its_own_reply(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply(body=ANTHROPIC_TEXT[:_CUT] + _OVERLOADED), Reply(body=ANTHROPIC_TEXT))
    write_models(pitui_home, replay_server)
    result = run_pitui(project, "-p", "--model", "loop/tiny", "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Olá!") == 1
    assert result.stderr == ""


def test_an_id_in_several_providers_says_which_was_picked(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    write_models(pitui_home, replay_server, "alpha", "beta")
    result = run_pitui(project, "-p", "--model", "tiny", "hello")
    assert result.returncode == 0, result.stderr
    assert "alpha/tiny, beta/tiny" in result.stderr
    assert "using alpha/tiny" in result.stderr
    assert "--model PROVIDER/tiny" in result.stderr


def test_a_session_that_cannot_be_written_fails_with_the_reason(
    project: Path, pitui_home: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    write_models(pitui_home, replay_server)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_pitui(
        project, "-p", "--model", "loop/tiny", "--session-dir", str(blocker / "sessions"), "hi"
    )
    assert result.returncode == 1
    assert f"cannot create the session file {blocker / 'sessions'}" in result.stderr
    assert f"Not a directory: {blocker / 'sessions'}" in result.stderr
    assert "--no-session" in result.stderr
    assert "Traceback" not in result.stderr


def test_continuing_a_damaged_file_says_what_was_skipped(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.core.session.test_damage import damaged_file

    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    path = damaged_file(tmp_path / "s.jsonl")
    result = run_pitui(project, "-p", "--model", "demo/demo", "--session", str(path), "hello")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        "pitui: Session file damaged: 3 lines skipped, 1 entry whose parent is missing, "
        "1 parent cycle cut; the current path is cut at entry d4 (entries before it are "
        f"not in the model's context); details: `pitui session check {path}`"
    )


def test_unusable_auth_entries_and_default_model_are_warned_about(
    project: Path, pitui_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    pitui_home.mkdir(parents=True)
    (pitui_home / "auth.json").write_text('{"anthropic": {"type": "api_key", "key": 42}}')
    (pitui_home / "settings.json").write_text('{"defaultProvider": "nosuch"}')
    result = run_pitui(project, "-p", "--no-session", "hello")
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.split("pitui: ")
    assert any(
        w.startswith('auth file: entry "anthropic" is ignored: "key" must be a string')
        for w in warnings
    ), result.stderr
    assert 'settings: defaultProvider "nosuch" is not a known provider; using demo/demo' in (
        result.stderr
    )


_PING = b'event: ping\ndata: {"type": "ping"}\n\n'


@pytest.mark.parametrize("keep_alive", [b": keep-alive\n\n", _PING])
def test_a_stalled_server_ends_the_turn_with_a_retryable_error(
    project: Path, pitui_home: Path, replay_server: ReplayServer, keep_alive: bytes
) -> None:
    """No content for ``streamIdleTimeout`` seconds, keep-alives or not: the turn ends
    with a clear error instead of waiting for the 600 s read timeout (issue 22 item 5)."""
    stalled = Reply(body=ANTHROPIC_TEXT, hang_after=_CUT, keep_alive=keep_alive, keep_alive_s=0.1)
    replay_server.add(stalled)
    write_models(pitui_home, replay_server, streamIdleTimeout=1, retry={"enabled": False})
    started = time.monotonic()
    result = run_pitui(project, "-p", "--model", "loop/tiny", "hello", timeout=30)
    assert time.monotonic() - started < 15
    assert result.returncode == 1
    assert result.stdout.startswith("Olá! (That")
    assert "Stream timed out: no data from the provider for 1 s" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_stalled_reply_is_retried_automatically(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    stalled = Reply(body=ANTHROPIC_TEXT, hang_after=_CUT, keep_alive=_PING, keep_alive_s=0.1)
    replay_server.add(stalled, Reply(body=ANTHROPIC_TEXT))
    write_models(pitui_home, replay_server, streamIdleTimeout=1)
    result = run_pitui(project, "-p", "--model", "loop/tiny", "hello", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('Olá! (That\'s "hi" in Portuguese)')
    assert len(replay_server.requests) == 2
