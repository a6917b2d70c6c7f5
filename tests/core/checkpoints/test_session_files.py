"""Checkpoints in the session: where the entries go, which files each point stands for,
restores with their pre-restore checkpoint, and contexts equal to pi's oracle."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pitui.agent.events import MessageUpdateEvent, TurnStartEvent
from pitui.ai.events import ToolCallStartEvent
from pitui.ai.types import AssistantMessage, ToolCall
from pitui.core.agent_session import AgentSession
from pitui.core.checkpoints.points import CHECKPOINT_TYPE
from pitui.core.checkpoints.session_files import Prepared, Reason, SessionFiles
from pitui.core.context_report import report_for_file
from pitui.core.context_unsent import CHECKPOINT_REASON
from pitui.core.session.context import build_session_context
from pitui.core.session.load import parse_session_bytes
from pitui.core.session_setup import SessionOptions, create_agent_session
from tests.core.checkpoints.helpers import fast_demo, hash_tree, make_project  # noqa: F401
from tests.core.session.helpers import ORACLE, read_objects


async def _session(cwd: Path, **kw: Any) -> AgentSession:
    return await create_agent_session(SessionOptions(cwd=cwd, approve="workspace", **kw))


def _kinds(session: AgentSession) -> list[str]:
    assert session.session_file is not None
    kinds = []
    for line in map(json.loads, session.session_file.read_text().splitlines()[1:]):
        if line["type"] == "custom" and line["customType"] == CHECKPOINT_TYPE:
            kinds.append(f"checkpoint:{line['data']['reason']}")
        elif line["type"] == "message":
            kinds.append(line["message"]["role"])
    return kinds


async def test_checkpoints_go_before_the_first_write_and_at_the_end(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    git_before = hash_tree(project / ".git")
    session = await _session(project)
    await session.prompt("write app.py: port = 8080")
    await session.prompt("hello")  # no tool: no checkpoint
    await session.prompt("write app.py: port = 8080")  # same files: nothing new
    assert _kinds(session) == [
        "user",
        "assistant",
        "checkpoint:beforeTools",
        "toolResult",
        "assistant",
        "checkpoint:runEnd",
        "user",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert hash_tree(project / ".git") == git_before
    await session.close()


def _write_settings(home: Path, settings: dict[str, Any]) -> None:
    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps(settings))


async def test_turned_off_by_setting_or_flag(tmp_path: Path, pitui_home: Path) -> None:
    project = make_project(tmp_path / "p")
    session = await _session(project, no_checkpoints=True)
    await session.prompt("write app.py: port = 1")
    assert "checkpoint:beforeTools" not in _kinds(session)
    await session.close()
    _write_settings(pitui_home, {"checkpoints": {"enabled": False}})
    session = await _session(project)
    await session.prompt("write app.py: port = 2")
    assert "checkpoint:runEnd" not in _kinds(session)
    await session.close()


async def test_points_restore_and_the_pre_restore_checkpoint(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    session = await _session(project)
    await session.prompt("write app.py: port = 8080")
    files = await session.checkpoints.files()
    assert files is not None
    table = session.store.table
    first_user = next(i for i, r in enumerate(table.roles) if r == "user")
    before = files.point_for(table.ids[first_user])
    assert before is not None
    (project / "notes.txt").write_text("typed by hand\n")  # outside pitui
    comparison = await files.compare(before)
    assert {c.path for c in comparison.changes} == {"app.py", "notes.txt"}
    result = await files.restore(before)
    assert (project / "app.py").read_text() == "port = 9090\n"
    assert not (project / "notes.txt").exists()
    assert result.outside == ["notes.txt"]
    assert "1 file changed outside pitui was saved first" in result.summary()
    # The pre-restore checkpoint is a node: restoring it brings everything back.
    again = await files.restore(result.pre_restore)
    assert (project / "app.py").read_text() == "port = 8080"
    assert (project / "notes.txt").read_text() == "typed by hand\n"
    assert again.outside == []
    # The leaf did not move (a restore alone moves files, not the conversation): its
    # checkpoint is the files just before this restore, which differ from the project.
    assert await files.differs()
    await session.close()


async def test_the_context_report_lists_checkpoints_as_not_sent(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    session = await _session(project)
    await session.prompt("write app.py: port = 8080")
    assert session.session_file is not None
    path = session.session_file
    await session.close()
    report = await report_for_file(path)
    reasons = [item.reason for item in report.not_sent]
    assert reasons.count(CHECKPOINT_REASON) == 2


@pytest.mark.parametrize("name", ["large-session", "before-compaction"])
def test_context_with_checkpoints_equals_pis_oracle(name: str) -> None:
    """Checkpoint entries spliced into pi's own file change nothing pi's code builds."""
    objects = read_objects(ORACLE / f"{name}.v3.jsonl")
    spliced: list[dict[str, Any]] = [objects[0]]
    for number, line in enumerate(objects[1:]):
        if number % 5 == 3:
            checkpoint = {
                "type": "custom",
                "id": f"c{number:07x}",
                "parentId": line["parentId"],
                "timestamp": line.get("timestamp", ""),
                "customType": CHECKPOINT_TYPE,
                "data": {"tree": "0" * 40, "changed": ["a.py"], "changedCount": 1},
            }
            spliced.append(checkpoint)
            line = {**line, "parentId": checkpoint["id"]}
        spliced.append(line)
    data = b"".join(json.dumps(o).encode() + b"\n" for o in spliced)
    expected = json.loads((ORACLE / f"{name}.v3.context.json").read_text())
    context = build_session_context(parse_session_bytes(data).table.all())
    assert [m.to_json_dict() for m in context.messages] == expected["agentMessages"]


async def test_moving_through_the_tree_brings_the_files(tmp_path: Path) -> None:
    """The issue's flow on the façade: edit, go back to before it with its files, then
    switch to the newer branch again and restore forward."""
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    session = await _session(project)
    await session.prompt("write app.py: port = 8080")
    table = session.store.table
    user = next(table.ids[i] for i, r in enumerate(table.roles) if r == "user")
    newest = session.store.get_leaf_id()
    assert newest is not None
    comparison = await session.checkpoints.comparison_for(user)
    assert comparison is not None and comparison.count == 1
    await session.checkpoints.restore(comparison.point)
    await session.navigate(user)
    assert (project / "app.py").read_text() == "port = 9090\n"
    await session.prompt("hello")  # a new branch from before the edit
    back = await session.checkpoints.comparison_for(newest)
    assert back is not None and [c.path for c in back.changes] == ["app.py"]
    await session.checkpoints.restore(back.point)
    await session.switch_branch(newest)
    assert (project / "app.py").read_text() == "port = 8080"
    assert await session.checkpoints.comparison_for(newest) is None  # nothing differs
    await session.close()


async def test_checkpoints_are_recorded_from_snapshots_taken_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot before the write starts as the model begins the call, the run's last
    one as the turn after the write begins: neither checkpoint waits for a snapshot of
    its own."""
    recorded: list[tuple[str, bool]] = []
    real = SessionFiles.record

    async def record(self: SessionFiles, reason: Reason, ahead: Prepared | None = None) -> Any:
        recorded.append((reason, ahead is not None))
        return await real(self, reason, ahead)

    monkeypatch.setattr(SessionFiles, "record", record)
    project = make_project(tmp_path / "p", {"app.py": "port = 9090\n"})
    session = await _session(project)
    await session.prompt("write app.py: port = 8080")
    assert recorded == [("beforeTools", True), ("runEnd", True)]
    files = await session.checkpoints.files()
    assert files is not None and (latest := files.latest()) is not None
    assert latest.tree == (await files.engine.snapshot()).tree  # the files after the write
    await session.close()


async def test_a_snapshot_no_checkpoint_wants_is_cancelled(tmp_path: Path) -> None:
    """The model began a call that may change files, and the run ended before it ran."""
    project = make_project(tmp_path / "p")
    session = await _session(project)
    call = ToolCall(id="call-1", name="write", arguments={})
    message = AssistantMessage(api="x", provider="x", model="x", content=[call])
    started = ToolCallStartEvent(content_index=0, partial=message)
    await session.checkpoints.on_event(TurnStartEvent())
    await session.checkpoints.on_event(
        MessageUpdateEvent(message=message, assistant_message_event=started)
    )
    assert await session.checkpoints.after_run() is None
    assert not [t for t in asyncio.all_tasks() if "prepare" in repr(t.get_coro())]
    assert session.checkpoints.last is None  # nothing recorded
    files = await session.checkpoints.files()
    assert files is not None
    async with asyncio.timeout(5), files.engine.locked():
        pass  # the store's lock is free
    await session.close()
