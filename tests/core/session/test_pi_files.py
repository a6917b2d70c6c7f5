"""pi's own session files: round-trip, migration shape, and context equal to pi's oracle."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.ai.types import UserMessage
from pitui.core.messages import convert_to_llm
from pitui.core.session.context import UNSET, SessionContext, build_session_context, entry_message
from pitui.core.session.entries import CompactionEntry, MessageEntry, SessionEntry, parse_entry
from pitui.core.session.load import parse_session_bytes
from pitui.core.session.migrate import migrate_objects
from pitui.core.session.store import SessionStore
from tests.core.session.helpers import (
    NAMES,
    ORACLE,
    ORACLE_LEAVES,
    PI_SESSIONS,
    names_in,
    read_objects,
)

_ID = re.compile(r"^[0-9a-f]{8}$")


@pytest.mark.parametrize("name", NAMES)
def test_every_entry_and_message_round_trips(name: str) -> None:
    for path in (PI_SESSIONS / f"{name}.jsonl", ORACLE / f"{name}.v3.jsonl"):
        objects = read_objects(path)
        migrate_objects(objects)
        for obj in objects[1:]:
            entry = parse_entry(obj)
            assert entry.to_json_dict() == obj
            if isinstance(entry, MessageEntry):
                assert type(entry.message).__name__ != "OpaqueMessage"
                assert entry.message.to_json_dict() == obj["message"]


def _shape(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in ("id", "parentId", "firstKeptEntryId")}


@pytest.mark.parametrize("name", NAMES)
def test_migration_has_pis_structure(name: str) -> None:
    ours = read_objects(PI_SESSIONS / f"{name}.jsonl")
    assert migrate_objects(ours) == 1
    expected = read_objects(ORACLE / f"{name}.v3.jsonl")
    assert len(ours) == len(expected)
    assert ours[0] == expected[0]
    assert list(ours[0])[-1] == "version"
    positions = {o["id"]: i for i, o in enumerate(ours[1:], 1)}
    expected_positions = {o["id"]: i for i, o in enumerate(expected[1:], 1)}
    previous = None
    for mine, theirs in zip(ours[1:], expected[1:], strict=True):
        assert list(mine) == list(theirs)  # same keys in the same order
        assert _shape(mine) == _shape(theirs)
        assert _ID.match(mine["id"]) and mine["parentId"] == previous
        previous = mine["id"]
        if "firstKeptEntryId" in theirs:
            target = expected_positions[theirs["firstKeptEntryId"]]
            assert positions[mine["firstKeptEntryId"]] == target
    assert migrate_objects(ours) is None  # idempotent


def _oracle(name: str, suffix: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ORACLE / f"{name}.{suffix}.json").read_text())
    return data


def _cases() -> list[tuple[str, str, str | None]]:
    return [(n, s, leaf) for n, leaves in ORACLE_LEAVES.items() for s, leaf in leaves.items()]


@pytest.mark.parametrize(("name", "suffix", "leaf"), _cases())
def test_context_equals_pis(name: str, suffix: str, leaf: str | None) -> None:
    expected = _oracle(name, suffix)
    loaded = parse_session_bytes((ORACLE / f"{name}.v3.jsonl").read_bytes())
    entries = loaded.table.all()
    assert len(entries) == expected["entryCount"]
    context = build_session_context(entries, leaf if leaf is not None else UNSET)
    assert context.leaf_id == expected["leafId"]
    assert context.thinking_level == expected["thinkingLevel"]
    assert (context.model.to_json_dict() if context.model else None) == expected["model"]
    assert [m.to_json_dict() for m in context.messages] == expected["agentMessages"]
    llm = convert_to_llm(context.messages)
    assert [m.to_json_dict() for m in llm] == expected["llmMessages"]
    _check_sources(entries, context)


def _check_sources(entries: list[SessionEntry], context: SessionContext) -> None:
    """Each message names its entry; the summarised ones are the path before the kept."""
    by_id = {e.id: e for e in entries}
    assert len(context.entry_ids) == len(context.messages)
    for message, entry_id in zip(context.messages, context.entry_ids, strict=True):
        source = by_id[entry_id]
        expected = "compaction" if message.role == "compactionSummary" else None
        assert source.type == expected or entry_message(source) == message
    summarised_ids = [entries[p].id for p in context.path[: context.summarised]]
    if summarised_ids:
        compaction = by_id[context.entry_ids[0]]
        assert isinstance(compaction, CompactionEntry)
        assert compaction.first_kept_entry_id not in summarised_ids
        kept = compaction.first_kept_entry_id
        assert kept is not None
        kept_parent = by_id[kept].parent_id  # summarised: the path up to the kept one
        assert kept_parent == summarised_ids[-1]


@pytest.mark.parametrize("name", NAMES)
async def test_context_of_v1_original_equals_v3_context(name: str) -> None:
    store = await SessionStore.open(PI_SESSIONS / f"{name}.jsonl", read_only=True)
    assert store.report.migrated_from == 1
    expected = _oracle(name, "v3.context")
    assert [m.to_json_dict() for m in store.build_context().messages] == expected["agentMessages"]


async def test_opening_v1_to_read_it_never_rewrites_it(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    shutil.copy(PI_SESSIONS / "large-session.jsonl", target)
    original = target.read_bytes()
    for read_only in (True, False):  # `session tree` / the TUI viewing it
        store = await SessionStore.open(target, read_only=read_only)
        assert store.report.migrated_from == 1
        await store.close()
        assert target.read_bytes() == original
    assert names_in(tmp_path) == ["s.jsonl"]


async def test_the_first_append_writes_the_migration_atomically_keeping_the_original(
    tmp_path: Path,
) -> None:
    target = tmp_path / "s.jsonl"
    shutil.copy(PI_SESSIONS / "large-session.jsonl", target)
    original = target.read_bytes()
    store = await SessionStore.open(target)
    new_id = await store.append_message(UserMessage(content="after migration", timestamp=5))
    await store.close()
    assert store.migration_backup == tmp_path / "s.jsonl.v1.bak"
    assert store.migration_backup.read_bytes() == original
    rewritten = read_objects(target)
    assert rewritten[0]["version"] == 3
    assert [o.get("id") for o in rewritten[1:]] == [e.id for e in store.get_entries()]
    assert rewritten[-1]["id"] == new_id
    assert names_in(tmp_path) == ["s.jsonl", "s.jsonl.v1.bak"]  # no temp file left
    again = await SessionStore.open(target, read_only=True)
    assert again.report.migrated_from is None
    assert again.get_leaf_id() == new_id
