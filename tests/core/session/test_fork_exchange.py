"""A fork point inside a tool exchange (issue 22 item 14): the copy never ends in a tool
call without its result. pi offers only user messages to fork at; Shift+F on any entry
forks at the end of the exchange the entry is in, or says why it cannot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.ai.models import ModelRegistry
from pitui.ai.types import AssistantMessage
from pitui.core.agent_session import AgentSession
from pitui.core.context_report import SYNTHETIC_NOTE, report_for_file
from pitui.core.session.check import check_bytes
from pitui.core.session.entries import MessageEntry
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.errors import SessionError
from tests.core.session.helpers import HEADER, assistant, entry, jsonl
from tests.modes.loopback import run_pitui


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def _session(tmp_path: Path, file: Path | None = None) -> AgentSession:
    options = SessionOptions(
        cwd=tmp_path,
        registry=ModelRegistry(),
        session_dir=tmp_path / "s",
        model="demo/demo",
        session_file=file,
    )
    return await create_agent_session(options)


def _call(call_id: str, name: str = "bash") -> dict[str, object]:
    block = {"type": "toolCall", "id": call_id, "name": name, "arguments": {"command": "ls"}}
    return assistant(content=[block], stopReason="toolUse")


def _result(call_id: str) -> dict[str, object]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "bash",
        "content": [{"type": "text", "text": "a\nb"}],
        "isError": False,
        "timestamp": 3,
    }


async def test_shift_f_on_a_reply_with_a_tool_call_forks_after_its_result(
    tmp_path: Path,
) -> None:
    session = await _session(tmp_path)
    await session.prompt("list files")
    calls = [
        e
        for e in session.store.get_entries()
        if isinstance(e, MessageEntry) and isinstance(e.message, AssistantMessage)
        and e.message.tool_calls()
    ]  # fmt: skip
    assert calls, "the demo model answers 'list files' with a tool call"
    await session.fork(calls[0].id)
    path = session.session_file
    assert path is not None
    result = check_bytes(path.read_bytes())
    assert result.problems == [] and result.warnings == []  # no "warning from a crash"
    leaf = session.store.get_leaf_entry()
    assert isinstance(leaf, MessageEntry) and leaf.message.role == "toolResult"
    await session.close()


async def test_a_fork_at_a_call_without_a_result_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    file = tmp_path / "crashed.jsonl"
    user = entry("u1", None)
    file.write_bytes(jsonl([HEADER, user, entry("a1", "u1", message=_call("c1"))]))
    session = await _session(tmp_path, file)
    with pytest.raises(SessionError, match="the bash call of entry a1 has no result"):
        await session.fork("a1")
    await session.close()


async def test_a_fork_at_the_first_of_two_results_takes_both(tmp_path: Path) -> None:
    file = tmp_path / "two.jsonl"
    two = assistant(
        content=[
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}},
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {}},
        ],
        stopReason="toolUse",
    )
    objects = [
        HEADER,
        entry("u1", None),
        entry("a1", "u1", message=two),
        entry("r1", "a1", message=_result("c1")),
        entry("r2", "r1", message=_result("c2")),
        entry("a2", "r2", message=assistant("done")),
    ]
    file.write_bytes(jsonl(objects))
    session = await _session(tmp_path, file)
    await session.fork("r1")
    assert session.store.get_leaf_id() == "r2"
    await session.close()


def _unanswered_file(tmp_path: Path) -> Path:
    file = tmp_path / "unanswered.jsonl"
    file.write_bytes(jsonl([HEADER, entry("u1", None), entry("a1", "u1", message=_call("c1"))]))
    return file


async def test_the_context_report_shows_the_synthesized_result(tmp_path: Path) -> None:
    report = await report_for_file(_unanswered_file(tmp_path))
    roles = [(m.message.role, m.synthetic) for m in report.messages]
    assert roles == [("user", False), ("assistant", False), ("toolResult", True)]
    inserted = report.messages[-1]
    assert inserted.note == SYNTHETIC_NOTE and inserted.tokens > 0
    data = report.to_json()
    assert data["messages"][-1]["synthetic"] is True
    assert data["messages"][-1]["message"]["content"][0]["text"] == "No result provided"
    assert len(data["llmMessages"]) == 2  # pi's convertToLlm output, as pi's oracle has it
    assert report.total_tokens == report.system_tokens + sum(t.tokens for t in report.tools) + sum(
        m.tokens for m in report.messages
    )


def test_session_context_prints_the_synthesized_result(tmp_path: Path) -> None:
    file = _unanswered_file(tmp_path)
    text = run_pitui(tmp_path, "session", "context", str(file))
    assert text.returncode == 0, text.stderr
    assert "+  toolResult" in text.stdout and "synthesized" in text.stdout
    assert "No result provided" in text.stdout
    data = json.loads(run_pitui(tmp_path, "session", "context", "--json", str(file)).stdout)
    assert [m["synthetic"] for m in data["messages"]] == [False, False, True]
