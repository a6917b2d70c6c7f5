"""AgentSession: persistence, ! commands, retries, model/thinking entries, tree moves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from pitui.core.agent_session import AgentSession
from pitui.core.messages import BashExecutionMessage, convert_to_llm
from pitui.core.session_events import AutoRetryEndEvent, SessionEvent
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.settings import Settings
from pitui.errors import SessionError
from tests.replay_server import ReplayServer, Reply


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _models_json(base_url: str) -> None:
    paths.models_file().parent.mkdir(parents=True, exist_ok=True)
    paths.models_file().write_text(
        json.dumps(
            {
                "providers": {
                    "fake": {
                        "baseUrl": base_url,
                        "api": "anthropic-messages",
                        "apiKey": "sk-fake-key-123456",
                        "models": [{"id": "claude-fake"}],
                    }
                }
            }
        )
    )


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


async def test_demo_run_is_persisted_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    session, events = await _session(tmp_path, approve="workspace")
    assert session.model is not None and session.model.provider == "demo"
    await session.prompt("read a.txt")
    assert _file_kinds(session) == [
        "session",
        "model_change",
        "thinking_level_change",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    types = [e.type for e in events]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    await session.close()


async def test_nothing_on_disk_before_the_first_reply(tmp_path: Path) -> None:
    session, _ = await _session(tmp_path)
    assert session.session_file is not None
    assert not session.session_file.exists()
    await session.close()


async def test_bang_command_is_persisted_and_double_bang_stays_out_of_context(
    tmp_path: Path,
) -> None:
    session, events = await _session(tmp_path)
    await session.run_bash("echo visible")
    await session.run_bash("echo hidden", exclude_from_context=True)
    bash = [m for m in session.messages if isinstance(m, BashExecutionMessage)]
    assert [m.output for m in bash] == ["visible\n", "hidden\n"]
    assert bash[0].exit_code == 0
    llm = convert_to_llm(session.messages)
    assert len(llm) == 1 and isinstance(llm[0], UserMessage)
    assert "Ran `echo visible`" in str(llm[0].content)
    assert "user_bash_start" in [e.type for e in events]
    await session.prompt("hi")
    assert _file_kinds(session)[3:5] == ["bashExecution", "bashExecution"]
    await session.close()


async def test_transient_error_is_retried(tmp_path: Path, replay_server: ReplayServer) -> None:
    _models_json(replay_server.url)
    replay_server.add(
        Reply.sse_file("anthropic_error_overloaded.sse"), Reply.sse_file("anthropic_text.sse")
    )
    settings = Settings.load({"retry": {"baseDelayMs": 1}})
    session, events = await _session(tmp_path, model="fake/claude-fake", settings=settings)
    await session.prompt("hello")
    retry = [e for e in events if e.type.startswith("auto_retry")]
    assert [e.type for e in retry] == ["auto_retry_start", "auto_retry_end"]
    assert isinstance(retry[-1], AutoRetryEndEvent)
    assert retry[-1].success is True
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "stop"
    # The failed reply left the model's context but stays in the file.
    assert sum(isinstance(m, AssistantMessage) for m in session.messages) == 1
    assert _file_kinds(session).count("assistant") == 2
    await session.close()


async def test_a_save_failure_is_not_retried_even_if_it_reads_like_one(tmp_path: Path) -> None:
    """The reply came, then saving it failed: the error names a path, which may contain
    "503" (a pytest folder, a uuid). That is no provider error, and there is no turn to
    run again (the context would end with the reply): the run ends with the error."""
    blocker = tmp_path / "run-503"
    blocker.write_text("")
    settings = Settings.load({"retry": {"baseDelayMs": 1}})
    session, events = await _session(tmp_path, session_dir=blocker / "sessions", settings=settings)
    await session.prompt("hello")
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert "cannot create the session file" in str(last.error_message)
    assert "503" in str(last.error_message)
    assert not [e for e in events if e.type.startswith("auto_retry")]
    await session.close()


async def test_retries_give_up_after_max(tmp_path: Path, replay_server: ReplayServer) -> None:
    _models_json(replay_server.url)
    for _ in range(3):
        replay_server.add(Reply.sse_file("anthropic_error_overloaded.sse"))
    settings = Settings.load({"retry": {"baseDelayMs": 1, "maxRetries": 2}})
    session, events = await _session(tmp_path, model="fake/claude-fake", settings=settings)
    await session.prompt("hello")
    ends = [e for e in events if isinstance(e, AutoRetryEndEvent)]
    assert len(ends) == 1 and ends[0].success is False
    assert "Overloaded" in str(ends[0].final_error)
    await session.close()


async def test_model_and_thinking_changes_are_entries(tmp_path: Path) -> None:
    session, _ = await _session(tmp_path)
    await session.prompt("hi")
    level = await session.cycle_thinking_level()
    assert level == "minimal"
    await session.set_name("  my session ")
    assert session.session_name == "my session"
    assert _file_kinds(session)[-2:] == ["thinking_level_change", "session_info"]
    await session.close()


async def test_picked_model_and_level_become_the_next_sessions_defaults(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _models_json(replay_server.url)
    paths.settings_file().write_text(json.dumps({"theme": "light", "piOnly": {"x": 1}}))
    session, _ = await _session(tmp_path, model="demo/demo")
    fake = session.registry.find("fake", "claude-fake")
    assert fake is not None
    await session.set_model(fake)
    await session.close()
    demo, _ = await _session(tmp_path, model="demo/demo")  # --model is not remembered
    await demo.cycle_thinking_level()
    await demo.close()
    saved = json.loads(paths.settings_file().read_text())
    assert saved == {
        "theme": "light",
        "piOnly": {"x": 1},
        "defaultProvider": "fake",
        "defaultModel": "claude-fake",
        "defaultThinkingLevel": "minimal",
    }
    fresh, _ = await _session(tmp_path)
    assert fresh.model is not None and (fresh.model.provider, fresh.model.id) == (
        "fake",
        "claude-fake",
    )
    await fresh.close()


async def test_a_broken_settings_file_is_never_overwritten(tmp_path: Path) -> None:
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text('{"theme": "light",')
    session, _ = await _session(tmp_path)
    await session.cycle_thinking_level()
    assert session.thinking_level == "minimal"
    await session.close()
    assert paths.settings_file().read_text() == '{"theme": "light",'


async def test_navigate_to_user_message_returns_its_text(tmp_path: Path) -> None:
    session, _ = await _session(tmp_path)
    await session.prompt("first question")
    await session.prompt("second question")
    entries = session.store.get_entries()
    second_user = [
        e
        for e in entries
        if getattr(e, "type", "") == "message"
        and isinstance(getattr(e, "message", None), UserMessage)
    ][1]
    text = await session.navigate(second_user.id)
    assert text == "second question"
    assert session.store.get_leaf_id() == second_user.parent_id
    assert [m.role for m in session.messages] == ["user", "assistant"]
    await session.close()


async def test_resume_restores_messages_model_and_level(tmp_path: Path) -> None:
    session, _ = await _session(tmp_path, thinking="high")
    await session.prompt("remember me")
    path = session.session_file
    await session.close()
    resumed, _ = await _session(tmp_path, session_file=path)
    assert [m.role for m in resumed.messages] == ["user", "assistant"]
    assert resumed.thinking_level == "high"
    await resumed.close()


async def test_print_mode_denies_writes_outside_the_project(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    project = tmp_path / "p"
    project.mkdir()
    session, events = await _session(project, approve="workspace")
    await session.prompt(f"write {outside}: secret")
    assert not outside.exists()
    denied = [e for e in events if e.type == "tool_denied"]
    assert len(denied) == 1
    results = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    assert results[0].is_error is True
    await session.close()


async def test_resume_switches_in_place_with_model_and_level(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    _models_json(replay_server.url)
    replay_server.add(Reply.sse_file("anthropic_text.sse"))
    other, _ = await _session(tmp_path, model="fake/claude-fake", thinking="high")
    await other.prompt("in the other session")
    target = other.session_file
    await other.close()
    session, events = await _session(tmp_path, model="demo/demo", thinking="low")
    await session.prompt("here")
    assert target is not None and session.model is not None and session.model.id == "demo"
    await session.resume(target)
    assert session.session_file == target and session.agent.session_id == session.store.session_id
    assert [m.role for m in session.messages] == ["user", "assistant"]
    assert session.model is not None and session.model.id == "claude-fake"
    assert session.thinking_level == "off"  # claude-fake has no reasoning: clamped
    assert any(e.type == "session_changed" and e.kind == "resume" for e in events)
    await session.close()


async def test_resume_without_a_recorded_level_takes_the_default_and_records_it(
    tmp_path: Path,
) -> None:
    header = {"type": "session", "version": 3, "id": "0b7c", "timestamp": "2026-01-01T00:00:00Z",
              "cwd": str(tmp_path)}  # fmt: skip
    user = {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1}}  # fmt: skip
    reply = {"type": "message", "id": "b2", "parentId": "a1", "timestamp": "2026-01-01T00:00:02Z",
             "message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}],
                         "api": "demo", "provider": "demo", "model": "demo",
                         "stopReason": "stop", "timestamp": 2,
                         "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                                   "totalTokens": 2}}}  # fmt: skip
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (header, user, reply)))
    session, _ = await _session(tmp_path, thinking="low")
    await session.resume(path)
    assert session.thinking_level == "medium"  # pi's default: no defaultThinkingLevel set
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["type"] == "thinking_level_change" and last["thinkingLevel"] == "medium"
    await session.close()


async def test_a_session_another_pitui_holds_opens_read_only(tmp_path: Path) -> None:
    from pitui.core.session.store import read_only_notice
    from pitui.core.session.writer import SessionWriter

    first, _ = await _session(tmp_path)
    await first.prompt("hello")
    held = first.session_file
    assert held is not None
    await first.close()
    writer = await SessionWriter.open(held)  # as another pitui holding the file
    session, events = await _session(tmp_path)
    try:
        before = held.read_bytes()
        await session.resume(held)
        assert session.store.read_only and [m.role for m in session.messages][:1] == ["user"]
        notices = [e for e in events if e.type == "session_notice"]
        assert [n.message for n in notices] == [read_only_notice(session.store)]
        with pytest.raises(SessionError, match="open read-only"):
            await session.prompt("refused")
        assert held.read_bytes() == before
    finally:
        await writer.close()
        await session.close()


async def test_clone_copies_the_current_path_into_a_new_file(tmp_path: Path) -> None:
    session, _ = await _session(tmp_path)
    await session.prompt("first question")
    await session.store.set_label(session.store.get_entries()[0].id, "start")
    old_file = session.session_file
    old_bytes = old_file.read_bytes() if old_file else b""
    before = [m.to_json_dict() for m in session.messages]
    await session.clone()
    assert session.session_file is not None and session.session_file != old_file
    assert [m.to_json_dict() for m in session.messages] == before
    header = session.session_file.read_text().splitlines()[0]
    assert str(old_file) in header  # parentSession
    assert old_file is not None and old_file.read_bytes() == old_bytes
    assert "start" in session.store.labels().values()
    assert session.agent.session_id == session.store.session_id  # requests name the new file
    await session.close()


async def test_the_leaf_stays_put_while_a_run_is_in_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As pi 1.6 refuses navigateTree while streaming: the run's next message would be
    appended at the new leaf, on the branch the user switched to."""
    import asyncio

    from pitui.agent.agent import AgentError
    from pitui.core.agent_session import TREE_MOVE_WHILE_STREAMING

    session, _ = await _session(tmp_path)
    await session.prompt("first question")
    first_leaf = session.store.get_leaf_id()
    assert first_leaf is not None
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "40")  # a reply that takes a while
    run = asyncio.create_task(session.prompt("second question"))
    for _ in range(2000):  # until the run has started
        if session.is_streaming:
            break
        await asyncio.sleep(0.005)
    busy_leaf = session.store.get_leaf_id()
    for move in (session.switch_branch(first_leaf), session.navigate(first_leaf)):
        with pytest.raises(AgentError, match=TREE_MOVE_WHILE_STREAMING):
            await move
    assert session.store.get_leaf_id() == busy_leaf
    session.abort()
    await run
    await session.wait_for_idle()
    await session.switch_branch(first_leaf)  # idle again: allowed
    assert session.store.get_leaf_id() == first_leaf
    await session.close()
