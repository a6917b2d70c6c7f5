"""pitui's compaction and navigation preparation equals pi's own answers.

Two sources of expected results: ``tests/fixtures/pi-oracle`` (pi 0.58.3 on the two shared
real sessions) and ``fixtures/gen-oracle.json`` (pi 0.58.3 on generated edge-case
sessions, made by ``make_oracle.py``).
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pitui.ai.types import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from pitui.core.compaction.branch import (
    collect_entries_for_branch_summary,
    plan_navigation,
    prepare_branch_entries,
    token_budget,
)
from pitui.core.compaction.cut import path_view, prepare_compaction
from pitui.core.compaction.files import (
    FileOperations,
    compute_file_lists,
    extract_from_message,
    format_file_operations,
)
from pitui.core.compaction.serialize import serialize_agent_messages
from pitui.core.compaction.tokens import estimate_raw_message, estimate_tokens
from pitui.core.session.entries import MessageEntry
from pitui.core.session.store import SessionStore
from pitui.core.settings import CompactionSettings
from pitui.modes.session_compact_cli import navigation_json, preparation_json

ORACLE = Path(__file__).parents[2] / "fixtures" / "pi-oracle"
GENERATED = Path(__file__).parent / "fixtures"

COMPACT_CASES = [
    "large-session.compact-prep.json",
    "large-session.compact-prep.k5000.json",
    "large-session.compact-prep.leaf-line500.json",
    "before-compaction.compact-prep.json",
    "before-compaction.compact-prep.k5000.json",
]
BRANCH_CASES = [
    "large-session.branch-prep.current-to-line700.json",
    "before-compaction.branch-prep.current-to-line400.json",
]


@cache
def _expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ORACLE / name).read_text(encoding="utf-8"))
    return data


async def _open(name: str) -> SessionStore:
    return await SessionStore.open(ORACLE / name, read_only=True)


def _session_of(case: str) -> str:
    return case.split(".")[0] + ".v3.jsonl"


@pytest.mark.parametrize("case", COMPACT_CASES)
async def test_compaction_preparation_equals_pi(case: str) -> None:
    expected = _expected(case)
    store = await _open(_session_of(case))
    settings = CompactionSettings.load(expected["settings"])
    prep = prepare_compaction(path_view(store.table, expected["leafId"]), settings)
    assert prep is not None
    cut = expected["cutPoint"]
    assert prep.boundary_start == cut["boundaryStart"]
    assert prep.cut.first_kept_entry_index == cut["firstKeptEntryIndex"]
    assert prep.cut.turn_start_index == cut["turnStartIndex"]
    assert prep.previous_summary == expected["previousSummary"]
    assert prep.file_ops.to_json() == expected["fileOps"]
    read_files, modified_files = compute_file_lists(prep.file_ops)
    assert {"readFiles": read_files, "modifiedFiles": modified_files} == expected["fileLists"]
    assert format_file_operations(read_files, modified_files) == expected["fileListsFormatted"]
    report = preparation_json(prep)
    for key in (
        "leafId",
        "firstKeptEntryId",
        "isSplitTurn",
        "tokensBefore",
        "messagesToSummarizeCount",
        "turnPrefixMessagesCount",
        "serialized",
        "turnPrefixSerialized",
    ):
        assert report[key] == expected[key], key


@pytest.mark.parametrize("case", BRANCH_CASES)
async def test_branch_preparation_equals_pi(case: str) -> None:
    expected = _expected(case)
    store = await _open(_session_of(case))
    store.branch(expected["oldLeafId"])
    entries = collect_entries_for_branch_summary(
        store.table, expected["oldLeafId"], expected["targetId"]
    )
    prep = prepare_branch_entries(entries.view, token_budget(None, 16384))
    assert token_budget(None, 16384) == expected["tokenBudget"]
    assert len(prep.messages) == expected["preparedMessagesCount"]
    assert prep.total_tokens == expected["totalTokens"]
    assert prep.file_ops.to_json() == expected["fileOps"]
    report = navigation_json(store, expected["targetId"], None, 16384)
    assert report["commonAncestorId"] == expected["commonAncestorId"]
    assert report["entryIds"] == expected["entryIds"]
    assert report["readFiles"] == expected["fileLists"]["readFiles"]
    assert report["modifiedFiles"] == expected["fileLists"]["modifiedFiles"]
    assert report["serialized"] == expected["serialized"]
    assert report["newLeafId"] == expected["navigation"]["newLeafId"]
    assert report["editorText"] == expected["navigation"]["editorText"]


@pytest.mark.parametrize("name", ["large-session", "before-compaction"])
async def test_migrated_v1_file_prepares_like_the_v3_file(name: str) -> None:
    """The v1 original (migrated in memory, random ids) gives the same cut by position."""
    expected = _expected(f"{name}.compact-prep.json")
    v1 = await SessionStore.open(ORACLE.parent / "pi-sessions" / f"{name}.jsonl", read_only=True)
    prep = prepare_compaction(path_view(v1.table, v1.get_leaf_id()), CompactionSettings())
    assert prep is not None
    assert prep.cut.first_kept_entry_index == expected["cutPoint"]["firstKeptEntryIndex"]
    report = preparation_json(prep)
    for key in ("isSplitTurn", "tokensBefore", "messagesToSummarizeCount", "serialized"):
        assert report[key] == expected[key], key
    assert report["readFiles"] == expected["fileLists"]["readFiles"]


# --------------------------------------------------------------------------- generated


@cache
def _generated() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((GENERATED / "gen-oracle.json").read_text())
    return data


def _generated_ids() -> list[str]:
    return [item["file"] for item in _generated()]


def _case(file: str) -> dict[str, Any]:
    return next(item for item in _generated() if item["file"] == file)


@pytest.mark.parametrize("file", _generated_ids())
async def test_generated_estimates_equal_pi(file: str) -> None:
    store = await SessionStore.open(GENERATED / file, read_only=True)
    for entry_id, tokens in _case(file)["estimates"].items():
        entry = store.get_entry(entry_id)
        assert isinstance(entry, MessageEntry)
        assert estimate_tokens(entry.message) == tokens, entry_id
        raw = store.table.raw(store.table.index[entry_id])["message"]
        assert estimate_raw_message(raw) == tokens, entry_id


@pytest.mark.parametrize("file", _generated_ids())
async def test_generated_compactions_equal_pi(file: str) -> None:
    store = await SessionStore.open(GENERATED / file, read_only=True)
    for case in _case(file)["compactions"]:
        settings = CompactionSettings(keep_recent_tokens=case["keep"])
        prep = prepare_compaction(path_view(store.table, case["leaf"]), settings)
        # The oracle is pi 0.73, which prepares a compaction that summarises nothing;
        # pi 1.6 (and pitui) refuse those ("Nothing to compact (session too small)").
        summarises = case["prepared"] and (
            case["messagesToSummarizeCount"] > 0 or case["turnPrefixMessagesCount"] > 0
        )
        assert (prep is not None) == summarises, case["leaf"]
        if prep is None:
            continue
        report = preparation_json(prep)
        label = f"{case['leaf']} keep={case['keep']}"
        for key, value in report.items():
            if key != "leafId":
                assert value == case[key], f"{label}: {key}"
        assert prep.previous_summary == case["previousSummary"]
        assert prep.file_ops.to_json() == case["fileOps"], label
        lists = compute_file_lists(prep.file_ops)
        assert format_file_operations(*lists) == case["fileListsFormatted"], label


@pytest.mark.parametrize("file", _generated_ids())
async def test_generated_navigations_equal_pi(file: str) -> None:
    store = await SessionStore.open(GENERATED / file, read_only=True)
    for case in _case(file)["navigations"]:
        store.branch(case["from"])
        report = navigation_json(store, case["to"], None, 16384)
        label = f"{case['from']}→{case['to']}"
        for key, value in report.items():
            assert value == case[key], f"{label}: {key}"
        entries = collect_entries_for_branch_summary(store.table, case["from"], case["to"])
        prep = prepare_branch_entries(entries.view, token_budget(None, 16384))
        assert len(prep.messages) == case["preparedMessagesCount"], label
        assert prep.total_tokens == case["totalTokens"], label
        target = store.get_entry(case["to"])
        assert target is not None
        assert plan_navigation(target).new_leaf_id == case["newLeafId"], label
        assert serialize_agent_messages(prep.messages) == case["serialized"], label


@pytest.mark.parametrize("file", _generated_ids())
async def test_fast_path_walk_equals_the_table_walk(file: str) -> None:
    store = await SessionStore.open(GENERATED / file, read_only=True)
    table = store.table
    for position in range(0, len(table), 7):
        view = path_view(table, table.ids[position])
        assert view.positions == table.path_positions(position)


async def test_file_ops_over_file_lines_and_appended_entries(tmp_path: Path) -> None:
    """A loaded file (entries kept as lines) plus entries appended since: same file ops
    as reading every typed message."""
    shutil.copy(GENERATED / "gen-3.jsonl", tmp_path / "s.jsonl")
    store = await SessionStore.open(tmp_path / "s.jsonl")
    call = ToolCall(id="new1", name="edit", arguments={"path": "appended.py"})
    await store.append_message(AssistantMessage(api="a", provider="p", model="m", content=[call]))
    await store.append_message(ToolResultMessage(tool_call_id="new1", tool_name="edit"))
    await store.append_message(UserMessage(content="next"))
    await store.append_message(AssistantMessage(api="a", provider="p", model="m"))
    view = path_view(store.table, store.get_leaf_id())
    prep = prepare_compaction(view, CompactionSettings(keep_recent_tokens=1))
    assert prep is not None
    expected = FileOperations()
    previous = max((i for i, kind in enumerate(view.kinds) if kind == "compaction"), default=-1)
    if previous >= 0:
        raw = view.raw(previous)
        if not raw.get("fromHook") and raw.get("details"):
            expected.seed(raw["details"])
    for message in prep.messages_to_summarize() + prep.turn_prefix_messages():
        extract_from_message(message, expected)
    assert "appended.py" in prep.file_ops.edited
    assert prep.file_ops.to_json() == expected.to_json()
    await store.close()
