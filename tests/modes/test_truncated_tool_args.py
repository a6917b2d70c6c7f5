"""Tool-call arguments that are not complete JSON at the end of the stream never run.

A real ``pitui -p --approve all`` against a loopback server whose reply ends a bash
call with ``{"command": "touch keep_me_not_this_`` and ``finish_reason: tool_calls``
(and the Anthropic equivalent): nothing is created, and the model gets a tool error
paired with the call's id (issue 21 item 14).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.modes.loopback import messages, run_pitui, session_lines
from tests.replay_server import ReplayServer, Reply

TRUNCATED = '{"command": "touch keep_me_not_this_'


def _sse(events: list[dict[str, object]], done: bool = True) -> bytes:
    lines = [f"data: {json.dumps(e)}\n\n" for e in events]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


def _chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "model": "tiny", "choices": [choice]}


def _openai_replies() -> list[Reply]:
    function = {"name": "bash", "arguments": ""}
    call = {"index": 0, "id": "call_1", "type": "function", "function": function}
    truncated = _sse(
        [
            _chunk({"role": "assistant", "tool_calls": [call]}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": TRUNCATED}}]}),
            _chunk({}, "tool_calls"),
        ]
    )  # fmt: skip
    text = _sse([_chunk({"role": "assistant", "content": "ok"}), _chunk({}, "stop")])
    return [Reply(truncated), Reply(text)]


def _anthropic(events: list[dict[str, object]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _anthropic_replies() -> list[Reply]:
    start: dict[str, object] = {"type": "message_start", "message": {
        "id": "m", "type": "message", "role": "assistant", "model": "tiny", "content": [],
        "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}  # fmt: skip
    tool = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}
    truncated = _anthropic(
        [
            start,
            {"type": "content_block_start", "index": 0, "content_block": tool},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "input_json_delta", "partial_json": TRUNCATED}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
             "usage": {"output_tokens": 5}},
            {"type": "message_stop"},
        ]
    )  # fmt: skip
    block = {"type": "text", "text": ""}
    text = _anthropic(
        [
            start,
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": "ok"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
             "usage": {"output_tokens": 1}},
            {"type": "message_stop"},
        ]
    )  # fmt: skip
    return [Reply(truncated), Reply(text)]


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages"])
def test_truncated_arguments_are_a_tool_error_not_a_command(
    api: str, tmp_path: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    replies = _openai_replies() if api == "openai-completions" else _anthropic_replies()
    replay_server.add(*replies)
    pitui_home.mkdir()
    provider = {"baseUrl": replay_server.url, "apiKey": "k", "api": api, "models": [{"id": "tiny"}]}
    (pitui_home / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
    project = tmp_path / "project"
    project.mkdir()
    result = run_pitui(project, "-p", "--approve", "all", "--model", "loop/tiny", "go")
    assert result.returncode == 0, result.stderr
    assert list(project.iterdir()) == []  # neither keep_me_not_this_ nor anything else
    [call_message, tool_result, _] = messages(session_lines(pitui_home))[1:]
    [call] = [b for b in call_message["content"] if b["type"] == "toolCall"]
    assert tool_result["role"] == "toolResult" and tool_result["isError"] is True
    assert tool_result["toolCallId"] == call["id"]
    text = tool_result["content"][0]["text"]
    assert "not complete JSON" in text and "was not run" in text
    # The model is told: the error is in what the next request sends.
    assert "not complete JSON" in json.dumps(replay_server.requests[-1].json())
