"""Flows of the real app against a loopback server replaying Anthropic streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.core.session_setup import SessionOptions
from pitui.modes.print_mode import run_prompts
from pitui.ui.view.state import ApprovalItem, AssistantItem, NoticeItem, ToolCardItem, UserItem
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.messages import UserMessage
from pitui.ui.widgets.status_bar import StatusBar
from tests.e2e.anthropic_script import anthropic_sse
from tests.replay_server import ReplayServer, Reply
from tests.ui.flows import (
    approval,
    idle,
    items_of,
    launch,
    make_project,
    started,
    submit,
    wait_for,
    write_models_json,
)

MODEL = ("--model", "fake-anthropic/fake-claude")
EDIT = {
    "name": "edit",
    "arguments": {
        "path": "src/config.ts",
        "edits": [{"oldText": "export const port = 3000;", "newText": "export const port = 8080;"}],
    },
}


@pytest.fixture
def project(tmp_path: Path, replay_server: ReplayServer) -> Path:
    write_models_json(replay_server.url)
    return make_project(tmp_path / "project")


def _queue(server: ReplayServer, *steps: dict[str, Any], **reply: Any) -> None:
    for n, step in enumerate(steps):
        server.add(Reply(body=anthropic_sse(step, f"msg_{len(server.requests) + n}"), **reply))


def _tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """The one tool result in the request's user messages."""
    results = [
        block
        for message in request["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert len(results) == 1
    result: dict[str, Any] = results[0]
    return result


async def test_prompt_tool_approval_result_reply(
    project: Path, replay_server: ReplayServer
) -> None:
    _queue(replay_server, {"tool_calls": [EDIT]}, {"text": "Port changed to **8080**."})
    app = launch(project, *MODEL)
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await submit(pilot, "Change the port to 8080.")
        modal = await approval(pilot)
        assert "+1 export const port = 8080;" in str(modal.query_one("#approval-body").render())
        [card] = items_of(app, ToolCardItem)
        assert isinstance(card, ToolCardItem) and card.args.get("path") == "src/config.ts"
        await pilot.press("enter")  # the focused choice: allow once
        await idle(pilot)
        [card] = items_of(app, ToolCardItem)
        assert isinstance(card, ToolCardItem) and card.state == "success"
        assert "+1 export const port = 8080;" in str(card.details)
        replies = items_of(app, AssistantItem)
        assert replies[-1].text == "Port changed to **8080**." and not replies[-1].streaming
        [item] = items_of(app, ApprovalItem)
        assert isinstance(item, ApprovalItem) and item.status == "allowed"
    assert (project / "src" / "config.ts").read_text() == "export const port = 8080;\n"
    result = _tool_result(replay_server.requests[1].json())
    assert "Successfully replaced text in src/config.ts." in str(result["content"])


async def test_deny_with_reason_reaches_the_model(
    project: Path, replay_server: ReplayServer
) -> None:
    _queue(replay_server, {"tool_calls": [EDIT]}, {"text": "Understood, leaving it."})
    app = launch(project, *MODEL)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, "Change the port to 8080.")
        await approval(pilot)
        await pilot.press("n", *"keep 3000", "enter")
        await idle(pilot)
        [card] = items_of(app, ToolCardItem)
        assert card.state == "denied" and "Reason: keep 3000" in card.output
        [item] = items_of(app, ApprovalItem)
        assert item.status == "denied"
    assert (project / "src" / "config.ts").read_text() == "export const port = 3000;\n"
    result = _tool_result(replay_server.requests[1].json())
    assert result["is_error"] is True
    assert "The user denied this edit call. Reason: keep 3000" in str(result["content"])


async def test_abort_mid_stream(project: Path, replay_server: ReplayServer) -> None:
    long_text = "word " * 400
    # ~4 s of stream (38 KB in 1 KB chunks): Esc lands mid-stream even at load ~10.
    _queue(replay_server, {"text": long_text}, chunk_size=1000, delay_s=0.1)
    app = launch(project, *MODEL, "--no-session")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, "Tell me a long story.")
        await wait_for(pilot, lambda: items_of(app, AssistantItem), "the reply to stream")
        await pilot.press("escape")
        await idle(pilot)
        notices = [i.text for i in items_of(app, NoticeItem) if isinstance(i, NoticeItem)]
        assert notices[-1] == "Operation aborted"
        [reply] = items_of(app, AssistantItem)
        assert isinstance(reply, AssistantItem) and not reply.streaming
        assert 0 < len(reply.text) < len(long_text)


async def test_steering_while_a_tool_runs(project: Path, replay_server: ReplayServer) -> None:
    sleep = {"name": "bash", "arguments": {"command": "sleep 0.6; echo slept"}}
    _queue(replay_server, {"tool_calls": [sleep]}, {"text": "Noted the steer."})
    app = launch(project, *MODEL, "--approve", "all", "--no-session")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, "Run the slow thing.")
        await wait_for(pilot, lambda: app.chat.tool_cards(), "the tool card")
        await wait_for(pilot, lambda: app.chat.tool_cards()[0].state == "running", "running")
        await submit(pilot, "also check the README")
        assert app.chat.steering == ("also check the README",)
        await idle(pilot)
        assert not app.chat.steering
        users = [i.text for i in items_of(app, UserItem) if isinstance(i, UserItem)]
        assert users == ["Run the slow thing.", "also check the README"]
        assert app.chat.tool_cards()[0].state == "success"
    second = replay_server.requests[1].json()
    assert "slept" in str(_tool_result(second)["content"])
    assert "also check the README" in str(second["messages"][-1])


async def test_resume_a_session_shows_its_history(
    project: Path, replay_server: ReplayServer
) -> None:
    _queue(replay_server, {"text": "The default port is 3000."})
    options = SessionOptions(cwd=project, model="fake-anthropic/fake-claude", approve="workspace")
    assert await run_prompts(options, ["What is the default port?"]) == 0
    [session_file] = list(paths.sessions_dir().rglob("*.jsonl"))
    app = launch(project, "--session", str(session_file))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: app.query(UserMessage), "the history")
        users = [str(w.content) for w in app.query(UserMessage)]
        assert users == ["What is the default port?"]
        [reply] = items_of(app, AssistantItem)
        assert reply.text == "The default port is 3000."
        assert app.main.conversation.widget_for(reply.id) is not None
        assert "fake-claude" in app.query_one(StatusBar).part("model")
        assert "↑1.4k" in app.query_one(StatusBar).part("usage")
        assert app.query_one(Composer).has_focus
