"""The core scenario end to end: read a file, answer, then edit it in the same session.

Runs pitui's print mode against a real loopback server replaying Anthropic streams
rendered from the real pi CLI's scripted answers (tests/fixtures/pi-cli/anthropic).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.core.session_setup import SessionOptions
from pitui.modes.print_mode import run_prompts
from tests.e2e.anthropic_script import anthropic_sse
from tests.replay_server import ReplayServer, Reply

PI_CLI = Path(__file__).parents[1] / "fixtures" / "pi-cli" / "anthropic"


def _script(name: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = json.loads((PI_CLI / name).read_text())
    return steps


def _write_models_json(base_url: str) -> None:
    config = {
        "providers": {
            "fake-anthropic": {
                "baseUrl": base_url,
                "api": "anthropic-messages",
                "apiKey": "sk-test-not-a-real-key",
                "models": [{"id": "fake-claude", "contextWindow": 200000, "maxTokens": 16384}],
            }
        }
    }
    paths.models_file().parent.mkdir(parents=True, exist_ok=True)
    paths.models_file().write_text(json.dumps(config))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "config.ts").write_text("export const port = 3000;\n")
    return root


async def _run(project: Path, prompt: str, *, continue_recent: bool) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    options = SessionOptions(
        cwd=project,
        model="fake-anthropic/fake-claude",
        approve="workspace",
        continue_recent=continue_recent,
    )
    code = await run_prompts(options, [prompt], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


async def test_read_then_edit_in_one_session(project: Path, replay_server: ReplayServer) -> None:
    _write_models_json(replay_server.url)
    steps = _script("script-run1.json") + _script("script-run2.json")
    for n, step in enumerate(steps):
        replay_server.add(Reply(body=anthropic_sse(step, f"msg_{n}")))

    code, out, err = await _run(
        project, "Read src/config.ts and tell me the default port.", continue_recent=False
    )
    assert (code, out, err) == (0, "The default port is 3000.\n", "")
    code, out, err = await _run(project, "Change it to 8080.", continue_recent=True)
    assert (code, out, err) == (0, "Done.\n", "")

    assert (project / "src" / "config.ts").read_text() == "export const port = 8080;\n"
    bodies = [r.json() for r in replay_server.requests]
    assert len(bodies) == 4
    # The first request of run 2 carries the whole history, tool call and result included.
    roles = [(m["role"], [b["type"] for b in m["content"]]) for m in bodies[2]["messages"]]
    assert roles == [
        ("user", ["text"]),
        ("assistant", ["tool_use"]),
        ("user", ["tool_result"]),
        ("assistant", ["text"]),
        ("user", ["text"]),
    ]
    assert bodies[2]["messages"][2]["content"][0]["content"] == "export const port = 3000;\n"
    assert replay_server.requests[0].headers.get("x-api-key") == "sk-test-not-a-real-key"

    session_files = list(paths.sessions_dir().rglob("*.jsonl"))
    assert len(session_files) == 1
    entries = [json.loads(line) for line in session_files[0].read_text().splitlines()]
    kinds = [e["type"] if e["type"] != "message" else e["message"]["role"] for e in entries]
    assert kinds == [
        "session",
        "model_change",
        "thinking_level_change",
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
        "custom",  # the files' checkpoint before the edit …
        "toolResult",
        "assistant",
        "custom",  # … and after the run (pi keeps both, never sends them)
    ]
    checkpoints = [e for e in entries if e["type"] == "custom"]
    assert {e["customType"] for e in checkpoints} == {"pitui.checkpoint"}
    assert [e["data"]["changed"] for e in checkpoints] == [["src/config.ts"], ["src/config.ts"]]
    ids = [e.get("id") for e in entries[1:]]
    assert [e["parentId"] for e in entries[2:]] == ids[:-1]
    assert "sk-test-not-a-real-key" not in session_files[0].read_text()


async def test_provider_error_goes_to_stderr_with_exit_1(
    project: Path, replay_server: ReplayServer
) -> None:
    _write_models_json(replay_server.url)
    replay_server.add(Reply.json_error(400, "anthropic_error_400_context.json"))
    code, out, err = await _run(project, "hello", continue_recent=False)
    assert code == 1
    assert out == ""
    # A one-turn session has nothing to compact (pi 1.6), so no recovery is tried and
    # the user is told with the provider's words.
    assert "prompt is too long" in err
    assert len(replay_server.requests) == 1


async def test_json_mode_streams_every_event_of_the_tool_run(
    project: Path, replay_server: ReplayServer
) -> None:
    _write_models_json(replay_server.url)
    for n, step in enumerate(_script("script-run1.json")):
        replay_server.add(Reply(body=anthropic_sse(step, f"msg_{n}")))
    out, err = io.StringIO(), io.StringIO()
    options = SessionOptions(
        cwd=project, model="fake-anthropic/fake-claude", approve="workspace", no_session=True
    )
    code = await run_prompts(
        options,
        ["Read src/config.ts and tell me the default port."],
        json_mode=True,
        out=out,
        err=err,
    )
    assert (code, err.getvalue()) == (0, "")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["type"] == "session"
    types = [line["type"] for line in lines[1:]]
    # pi's order for a tool round trip (PI_SPEC 3.5 b), updates collapsed.
    collapsed = [t for i, t in enumerate(types) if t != "message_update" or types[i - 1] != t]
    assert collapsed == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_update",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    end = next(line for line in lines if line["type"] == "tool_execution_end")
    assert end["result"]["content"][0]["text"] == "export const port = 3000;\n"
    assert end["isError"] is False
    final = lines[-1]["messages"][-1]
    assert final["content"][0]["text"] == "The default port is 3000."
