"""Branch summaries on navigation: entries written, leaf and editor rules, abort, errors."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.ai.abort import AbortSignal
from pitui.ai.models import DEMO_MODEL
from pitui.ai.types import AssistantMessage, Model, TextContent, UserMessage
from pitui.core.compaction.apply import NavigationError, NavigationRequest, navigate_store
from pitui.core.compaction.prompts import BRANCH_SUMMARY_PREAMBLE, NO_CONTENT_TO_SUMMARIZE
from pitui.core.messages import BRANCH_SUMMARY_PREFIX, BranchSummaryMessage, convert_to_llm
from pitui.core.session.store import SessionStore
from tests.replay_server import ReplayServer, Reply

ORACLE = Path(__file__).parents[2] / "fixtures" / "pi-oracle"


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _lines(store: SessionStore) -> list[dict[str, Any]]:
    assert store.path is not None
    return [json.loads(line) for line in store.path.read_bytes().splitlines()]


async def test_summary_is_stored_at_the_new_leaf(tmp_path: Path) -> None:
    expected = json.loads(
        (ORACLE / "large-session.branch-prep.current-to-line700.json").read_text()
    )
    shutil.copy(ORACLE / "large-session.v3.jsonl", tmp_path / "s.jsonl")
    store = await SessionStore.open(tmp_path / "s.jsonl")
    request = NavigationRequest(expected["targetId"], summarize=True, label="explored")
    result = await navigate_store(store, request, DEMO_MODEL, "demo")
    navigation = expected["navigation"]
    assert result.editor_text == navigation["editorText"]
    lines = _lines(store)
    summary, label = lines[-2], lines[-1]
    assert summary["type"] == "branch_summary"
    assert summary["parentId"] == summary["fromId"] == navigation["newLeafId"]
    assert summary["summary"].startswith(BRANCH_SUMMARY_PREAMBLE)
    assert summary["details"] == expected["fileLists"]
    assert summary["fromHook"] is False
    assert label == {**label, "type": "label", "targetId": summary["id"], "label": "explored"}
    messages = store.build_context().messages
    branch = [m for m in messages if isinstance(m, BranchSummaryMessage)]
    assert branch and branch[-1].summary == summary["summary"]
    text = convert_to_llm(messages)[-1]
    assert isinstance(text, UserMessage) and isinstance(text.content, list)
    block = text.content[0]
    assert isinstance(block, TextContent) and block.text.startswith(BRANCH_SUMMARY_PREFIX)
    await store.close()


async def _chat(tmp_path: Path) -> tuple[SessionStore, list[str]]:
    store = SessionStore.create(tmp_path, tmp_path / "sessions")
    ids = []
    for text in ("one", "two"):
        ids.append(await store.append_message(UserMessage(content=text)))
        reply = AssistantMessage(api="d", provider="d", model="d", content=[TextContent(text=text)])
        ids.append(await store.append_message(reply))
    return store, ids


async def test_navigating_to_the_root_user_message(tmp_path: Path) -> None:
    store, ids = await _chat(tmp_path)
    result = await navigate_store(store, NavigationRequest(ids[0], summarize=True), DEMO_MODEL, "d")
    assert result.editor_text == "one" and result.new_leaf_id is None
    summary = _lines(store)[-1]
    assert summary["parentId"] is None and summary["fromId"] == "root"
    assert store.get_leaf_id() == summary["id"]
    await store.close()


async def test_without_summary_only_the_leaf_moves(tmp_path: Path) -> None:
    store, ids = await _chat(tmp_path)
    assert store.path is not None
    before = store.path.read_bytes()
    result = await navigate_store(store, NavigationRequest(ids[1]))
    assert result.editor_text is None and store.get_leaf_id() == ids[1]
    assert store.path.read_bytes() == before
    same = await navigate_store(store, NavigationRequest(ids[1], summarize=True), DEMO_MODEL, "d")
    assert not same.cancelled and same.summary_entry_id is None  # already there: a no-op
    await store.close()


async def test_nothing_to_summarise_is_still_recorded(tmp_path: Path) -> None:
    store, ids = await _chat(tmp_path)
    await store.set_label(ids[3], "end")  # the abandoned branch holds only this label
    await navigate_store(store, NavigationRequest(ids[3], summarize=True), DEMO_MODEL, "d")
    assert _lines(store)[-1]["summary"] == NO_CONTENT_TO_SUMMARIZE
    await store.close()


async def test_refusals(tmp_path: Path) -> None:
    store, ids = await _chat(tmp_path)
    with pytest.raises(NavigationError, match="Entry nope not found"):
        await navigate_store(store, NavigationRequest("nope"))
    with pytest.raises(NavigationError, match="No model available for summarization"):
        await navigate_store(store, NavigationRequest(ids[1], summarize=True))
    await store.close()


async def test_abort_leaves_the_session_unchanged(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply.sse_file("anthropic_text.sse", chunk_size=40, delay_s=0.3))
    model = Model(id="claude-x", api="anthropic-messages", provider="anthropic",
                  base_url=replay_server.url)  # fmt: skip
    store, ids = await _chat(tmp_path)
    assert store.path is not None
    before, leaf = store.path.read_bytes(), store.get_leaf_id()
    signal = AbortSignal()
    request = NavigationRequest(ids[1], summarize=True)
    task = asyncio.create_task(navigate_store(store, request, model, "sk", signal))
    for _ in range(1000):
        if replay_server.requests:
            break
        await asyncio.sleep(0.01)
    signal.abort()
    result = await task
    assert result.cancelled and result.aborted
    assert store.path.read_bytes() == before and store.get_leaf_id() == leaf
    body = replay_server.requests[0].json()
    assert body["max_tokens"] == 2048 and "thinking" not in body
    await store.close()
