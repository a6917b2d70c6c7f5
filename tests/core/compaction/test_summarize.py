"""Summarisation calls: the offline demo model, a recorded Anthropic stream on a loopback
server (request shape, reasoning, parallel split-turn calls), errors and abort."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.ai.abort import AbortSignal
from pitui.ai.models import DEMO_MODEL
from pitui.ai.types import AssistantMessage, Model, TextContent, Usage, UserMessage
from pitui.core.compaction.apply import compact_store, prepare_for_store
from pitui.core.compaction.files import compute_file_lists, format_file_operations
from pitui.core.compaction.prompts import (
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_CONTEXT_SEPARATOR,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
)
from pitui.core.compaction.summarize import (
    CompactionCancelled,
    CompactionError,
    history_prompt,
    turn_prefix_prompt,
)
from pitui.core.messages import COMPACTION_SUMMARY_PREFIX, CompactionSummaryMessage, convert_to_llm
from pitui.core.session.store import SessionStore
from pitui.core.settings import CompactionSettings
from tests.replay_server import ReplayServer, Reply

ORACLE = Path(__file__).parents[2] / "fixtures" / "pi-oracle"


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def claude(base_url: str, reasoning: bool = True) -> Model:
    return Model(
        id="claude-sonnet-4-5",
        api="anthropic-messages",
        provider="anthropic",
        base_url=base_url,
        reasoning=reasoning,
        context_window=200_000,
        max_tokens=64_000,
    )


async def _copy(tmp_path: Path, name: str) -> SessionStore:
    target = tmp_path / name
    shutil.copy(ORACLE / name, target)
    return await SessionStore.open(target)


SMALL = CompactionSettings(keep_recent_tokens=5)
"""Keeps the second turn of :func:`_small_session` and summarises the first."""


async def _small_session(tmp_path: Path) -> SessionStore:
    store = SessionStore.create(tmp_path, tmp_path / "sessions")
    for text in ("first question", "second question"):
        await store.append_message(UserMessage(content=text))
        reply = AssistantMessage(
            api="demo", provider="demo", model="demo", content=[TextContent(text="answer")],
            usage=Usage(input=100, output=10, total_tokens=110),
        )  # fmt: skip
        await store.append_message(reply)
    return store


def _last_line(store: SessionStore) -> dict[str, Any]:
    assert store.path is not None
    line = store.path.read_bytes().splitlines()[-1]
    data: dict[str, Any] = json.loads(line)
    return data


async def test_compaction_with_the_demo_model_appends_the_entry(tmp_path: Path) -> None:
    store = await _copy(tmp_path, "large-session.v3.jsonl")
    prep = prepare_for_store(store, CompactionSettings())
    read_files, modified_files = compute_file_lists(prep.file_ops)
    result = await compact_store(store, CompactionSettings(), DEMO_MODEL, "demo")
    assert TURN_CONTEXT_SEPARATOR in result.summary  # a split turn: two summaries
    assert result.summary.endswith(format_file_operations(read_files, modified_files))
    entry = _last_line(store)
    assert entry["type"] == "compaction"
    assert entry["firstKeptEntryId"] == "77e21857"
    assert entry["tokensBefore"] == 177657
    assert entry["details"] == {"readFiles": read_files, "modifiedFiles": modified_files}
    assert entry["fromHook"] is False
    await store.close()
    reopened = await SessionStore.open(tmp_path / "large-session.v3.jsonl", read_only=True)
    messages = reopened.build_context().messages
    assert isinstance(messages[0], CompactionSummaryMessage)
    first = convert_to_llm(messages)[0]
    assert isinstance(first, UserMessage) and isinstance(first.content, list)
    block = first.content[0]
    assert isinstance(block, TextContent) and block.text.startswith(COMPACTION_SUMMARY_PREFIX)


async def test_split_turn_requests_run_in_parallel_with_pi_prompts(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    expected = json.loads((ORACLE / "large-session.compact-prep.json").read_text())
    replay_server.add(Reply.sse_file("anthropic_text.sse"), Reply.sse_file("anthropic_text.sse"))
    store = await _copy(tmp_path, "large-session.v3.jsonl")
    result = await compact_store(store, CompactionSettings(), claude(replay_server.url), "sk")
    bodies = [request.json() for request in replay_server.requests]
    assert len(bodies) == 2
    by_prompt = {b["messages"][0]["content"][0]["text"]: b for b in bodies}
    history = by_prompt[history_prompt(expected["serialized"], None, None)]
    prefix = by_prompt[turn_prefix_prompt(expected["turnPrefixSerialized"])]
    assert TURN_PREFIX_SUMMARIZATION_PROMPT in turn_prefix_prompt("")
    for body in (history, prefix):
        assert body["system"][0]["text"] == SUMMARIZATION_SYSTEM_PROMPT
    assert "thinking" in history  # reasoning model: reasoning "high"
    assert "thinking" not in prefix and prefix["max_tokens"] == 8192
    history_text, _, rest = result.summary.partition(TURN_CONTEXT_SEPARATOR)
    assert history_text.startswith("Olá!") and rest.startswith(history_text)
    await store.close()


async def test_no_reasoning_for_models_without_it(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply.sse_file("anthropic_text.sse"))
    store = await _small_session(tmp_path)
    model = claude(replay_server.url, reasoning=False)
    await compact_store(store, SMALL, model, "sk")
    (request,) = replay_server.requests
    body = request.json()
    assert "thinking" not in body and body["max_tokens"] == 13107
    text = body["messages"][0]["content"][0]["text"]
    assert text.startswith("<conversation>\n[User]: first question\n\n[Assistant]: answer\n")
    await store.close()


async def test_error_reply_raises_pi_text_and_writes_nothing(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply.json_error(400, "anthropic_error_400_context.json"))
    store = await _small_session(tmp_path)
    assert store.path is not None
    before = store.path.read_bytes()
    with pytest.raises(CompactionError) as caught:
        await compact_store(store, SMALL, claude(replay_server.url), "sk")
    assert caught.value.message.startswith("Summarization failed: ")
    assert "prompt is too long" in caught.value.message
    assert store.path.read_bytes() == before
    await store.close()


async def test_abort_during_summarisation_leaves_the_file_unchanged(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply.sse_file("anthropic_text.sse", chunk_size=40, delay_s=0.3))
    store = await _small_session(tmp_path)
    assert store.path is not None
    before = store.path.read_bytes()
    signal = AbortSignal()
    model = claude(replay_server.url)
    task = asyncio.create_task(compact_store(store, SMALL, model, "sk", signal=signal))
    for _ in range(1000):  # until the request is on the wire
        if replay_server.requests:
            break
        await asyncio.sleep(0.01)
    signal.abort()
    with pytest.raises(CompactionCancelled, match="Compaction cancelled"):
        await task
    assert store.path.read_bytes() == before
    assert store.entry_count() == 4
    await store.close()


async def test_already_compacted_and_empty_sessions_are_refused(tmp_path: Path) -> None:
    store = await _small_session(tmp_path)
    await compact_store(store, SMALL, DEMO_MODEL, "demo")
    with pytest.raises(CompactionError, match=r"^Already compacted$"):
        prepare_for_store(store, SMALL)
    empty = SessionStore.in_memory(tmp_path)
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        prepare_for_store(empty, CompactionSettings())
    await store.close()


async def test_a_compaction_that_would_summarise_nothing_is_refused(tmp_path: Path) -> None:
    """pi 1.6's rule: everything fits in keepRecentTokens → nothing written, ever."""
    store = await _small_session(tmp_path)
    assert store.path is not None
    before = store.path.read_bytes()
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        await compact_store(store, CompactionSettings(), DEMO_MODEL, "demo")
    # With a smaller budget the same session has a first turn to summarise.
    prep = prepare_for_store(store, CompactionSettings(keep_recent_tokens=1))
    assert prep.is_split_turn and prep.turn_prefix_indices
    assert store.path.read_bytes() == before
    await store.close()
