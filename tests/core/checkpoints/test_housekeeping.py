"""Housekeeping of the checkpoint store: what a prune keeps, and how often it runs."""

from __future__ import annotations

import time
from pathlib import Path

from pitui.agent.messages import parse_agent_message
from pitui.ai.types import TextContent, UserMessage
from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.file_diffs import file_diffs
from pitui.core.checkpoints.prune import prune
from pitui.core.checkpoints.session_files import SessionFiles
from pitui.core.checkpoints.store import PRUNE_EVERY_S
from pitui.core.checkpoints.trees import has_tree
from pitui.core.session.store import SessionStore
from tests.core.checkpoints.helpers import make_project
from tests.core.session.helpers import assistant


async def test_prune_keeps_named_trees_and_drops_the_rest(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"a.txt": "one\n"})
    engine = CheckpointEngine(project)
    orphan = await engine.snapshot()  # never recorded in any session
    (project / "a.txt").write_text("two\n")
    store = SessionStore.create(project, tmp_path / "sessions")
    await store.append_message(UserMessage(content=[TextContent(text="hi")]))
    await store.append_message(parse_agent_message(assistant()))
    recorded = await SessionFiles(engine, store).record("manual")
    await store.close()
    assert recorded is not None
    (project / "a.txt").write_text("three\n")
    await engine.snapshot()  # the index moves on: only the session names "two"
    result = await prune(engine, grace="now")
    assert result.sessions == 1 and result.trees == 1
    assert await has_tree(engine.store.git, recorded.tree)
    assert not await has_tree(engine.store.git, orphan.tree)


async def test_prune_runs_at_most_once_a_day(tmp_path: Path) -> None:
    engine = CheckpointEngine(make_project(tmp_path / "p"))
    await engine.snapshot()
    assert not engine.store.prune_due()  # a new store: its first prune is a day away
    assert not engine.store.prune_due()
    state = engine.store.read_state()
    state["lastPrune"] = time.time() - PRUNE_EVERY_S - 1
    engine.store.write_state(state)
    assert engine.store.prune_due()
    assert not engine.store.prune_due()  # marked as started


async def test_file_diffs_text_and_binary(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {"a.txt": "one\ntwo\n"})
    (project / "b.bin").write_bytes(b"\0\1\2")
    engine = CheckpointEngine(project)
    old = await engine.snapshot()
    (project / "a.txt").write_text("one\nTWO\n")
    (project / "b.bin").write_bytes(b"\0\3")
    new = await engine.snapshot()
    diffs = {d.path: d for d in await file_diffs(engine, await engine.changes(new.tree, old.tree))}
    assert "-2 TWO" in diffs["a.txt"].display and "+2 two" in diffs["a.txt"].display
    assert diffs["a.txt"].patch.startswith("--- a.txt\n+++ a.txt\n")
    assert diffs["b.bin"].binary and "binary file" in diffs["b.bin"].patch
