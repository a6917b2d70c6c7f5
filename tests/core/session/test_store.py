"""SessionStore: persistence rules, malformed files, locking, labels, branching, fork."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ai.types import AssistantMessage, TextContent, UserMessage
from pitui.core.messages import BranchSummaryMessage, CustomMessage
from pitui.core.session.entries import LabelEntry, UnknownEntry
from pitui.core.session.fork import fork_store
from pitui.core.session.store import SessionStore
from pitui.errors import SessionError
from tests.core.session.helpers import HEADER, assistant, entry, jsonl, names_in, read_objects


def _user(text: str = "hi") -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=1)


def _reply(text: str = "ok") -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api="a", provider="p", model="m", timestamp=2
    )


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


async def test_nothing_written_until_first_assistant_then_each_entry(tmp_path: Path) -> None:
    store = SessionStore.create("/proj", tmp_path)
    assert store.path is not None and store.path.parent == tmp_path
    await store.append_model_change("p", "m")
    await store.append_message(_user())
    assert names_in(tmp_path) == []
    await store.append_message(_reply())
    lines = read_objects(store.path)
    assert [o["type"] for o in lines] == ["session", "model_change", "message", "message"]
    assert lines[0]["version"] == 3 and lines[0]["cwd"] == "/proj"
    assert lines[1]["parentId"] is None and lines[2]["parentId"] == lines[1]["id"]
    await store.append_message(_user("again"))
    assert len(read_objects(store.path)) == 5
    await store.close()


async def test_default_dir_is_encoded_cwd_under_pitui_home(pitui_home: Path) -> None:
    store = SessionStore.create("/home/u/proj")
    assert store.path is not None
    assert store.path.parent == pitui_home / "sessions" / "--home-u-proj--"
    assert store.path.name.endswith(f"_{store.session_id}.jsonl")


async def test_bad_lines_skipped_and_reported_torn_tail_not_glued(tmp_path: Path) -> None:
    data = jsonl([HEADER, entry("a1", None)]) + b"not json\n"
    data += jsonl([entry("b2", "a1", message=assistant())]) + b'{"type":"message","id":"c3'
    path = _write(tmp_path / "s.jsonl", data)
    store = await SessionStore.open(path)
    assert store.report.bad_lines == [(3, store.report.bad_lines[0][1])]
    assert store.report.torn_tail
    assert [e.id for e in store.get_entries()] == ["a1", "b2"]
    new_id = await store.append_message(_user("after crash"))
    await store.close()
    reopened = await SessionStore.open(path, read_only=True)
    assert [e.id for e in reopened.get_entries()] == ["a1", "b2", new_id]
    assert reopened.get_entry(new_id) is not None
    assert reopened.get_leaf_id() == new_id
    # The torn bytes stay in the file (nothing is discarded), told apart from garbage.
    assert [number for number, _ in reopened.report.bad_lines] == [3]
    assert reopened.report.torn_lines == [5]


async def test_bad_header_is_an_error_and_file_untouched(tmp_path: Path) -> None:
    data = jsonl([entry("a1", None), entry("b2", "a1")])
    path = _write(tmp_path / "s.jsonl", data)
    with pytest.raises(SessionError, match="session header"):
        await SessionStore.open(path)
    garbage = _write(tmp_path / "g.jsonl", b"\x00\x01garbage\n")
    with pytest.raises(SessionError):
        await SessionStore.open(garbage)
    assert path.read_bytes() == data
    assert garbage.read_bytes() == b"\x00\x01garbage\n"


async def test_empty_or_missing_file_starts_a_session_at_that_path(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.jsonl", _write(tmp_path / "empty.jsonl", b"")):
        store = await SessionStore.open(path)
        assert store.path == path and store.entry_count() == 0
        await store.append_message(_user())
        await store.append_message(_reply())
        await store.close()
        objects = read_objects(path)
        assert [o["type"] for o in objects] == ["session", "message", "message"]


async def test_duplicate_headers_tolerated(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", jsonl([HEADER, entry("a1", None), HEADER]))
    store = await SessionStore.open(path, read_only=True)
    assert store.report.duplicate_headers == 1
    assert [e.id for e in store.get_entries()] == ["a1"]


async def test_cycle_and_missing_parent_are_cut_and_reported(tmp_path: Path) -> None:
    objects = [
        HEADER,
        entry("a1", "c3"),
        entry("b2", "a1"),
        entry("c3", "b2"),
        entry("d4", "zz"),
        entry("e5", "e5"),
    ]
    store = await SessionStore.open(_write(tmp_path / "s.jsonl", jsonl(objects)), read_only=True)
    assert store.report.cycles == ["a1", "e5"]
    assert store.report.missing_parents == ["d4"]
    assert [e.id for e in store.get_branch("c3")] == ["a1", "b2", "c3"]
    assert [n.entry.id for n in store.get_tree()] == ["a1", "d4", "e5"]
    assert len(store.build_context("c3").messages) == 3


async def test_lock_refuses_second_writer_or_falls_back_to_read_only(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", jsonl([HEADER, entry("a1", None, message=assistant())]))
    first = await SessionStore.open(path)
    with pytest.raises(SessionError, match="another pitui process"):
        await SessionStore.open(path)
    second = await SessionStore.open(path, fallback_read_only=True)
    assert second.read_only and not first.read_only
    with pytest.raises(SessionError, match="read-only"):
        await second.append_message(_user())
    await first.close()
    third = await SessionStore.open(path)
    await third.close()


async def test_unknown_entries_survive_load_append_load(tmp_path: Path) -> None:
    odd = entry("b2", "a1", kind="future_thing", payload={"x": [1, 2]}, extra=None)
    path = _write(
        tmp_path / "s.jsonl", jsonl([HEADER, entry("a1", None, message=assistant()), odd])
    )
    store = await SessionStore.open(path)
    assert isinstance(store.get_entry("b2"), UnknownEntry)
    new_id = await store.append_message(_user())
    await store.close()
    objects = read_objects(path)
    assert objects[2] == odd
    assert objects[3]["parentId"] == "b2" and objects[3]["id"] == new_id


async def test_labels_last_wins_clear_and_missing_target(tmp_path: Path) -> None:
    store = SessionStore.create("/p", tmp_path)
    first = await store.append_message(_user())
    await store.append_message(_reply())
    await store.set_label(first, "one")
    await store.set_label(first, "two")
    assert store.get_label(first) == "two"
    tree = store.get_tree()
    assert tree[0].label == "two"
    await store.set_label(first, None)
    assert store.get_label(first) is None
    with pytest.raises(SessionError, match="Entry nope not found"):
        await store.set_label("nope", "x")
    assert all(not isinstance(m, LabelEntry) for m in store.build_context().messages)
    await store.close()


async def test_name_is_latest_non_empty_session_info() -> None:
    store = SessionStore.in_memory("/p")
    await store.set_name("  first ")
    await store.set_name("")
    assert store.get_session_name() == "first"
    await store.set_name("second")
    assert store.get_session_name() == "second"


async def test_branch_reset_and_branch_with_summary() -> None:
    store = SessionStore.in_memory("/p")
    a = await store.append_message(_user("a"))
    b = await store.append_message(_reply("b"))
    store.branch(a)
    c = await store.append_message(_reply("c"))
    assert store.get_entry(c) is not None and store.get_children(a)[1].id == c
    with pytest.raises(SessionError, match="Entry zz not found"):
        store.branch("zz")
    summary = await store.branch_with_summary(a, "left b")
    assert store.get_leaf_id() == summary
    context = store.build_context()
    assert isinstance(context.messages[-1], BranchSummaryMessage)
    assert context.messages[-1].from_id == a
    store.reset_leaf()
    root = await store.append_message(_user("new root"))
    assert store.get_branch(root)[0].id == root and b in {e.id for e in store.get_entries()}
    at_root = await store.branch_with_summary(None, "s")
    entry_at_root = store.get_entry(at_root)
    assert entry_at_root is not None and entry_at_root.parent_id is None
    assert store.build_context(None).messages == []


async def test_custom_message_entry_in_context_and_exclusion() -> None:
    store = SessionStore.in_memory("/p")
    await store.append_message(_user())
    await store.append_custom_message("note", "visible", display=False)
    await store.append_custom_message("memo", "hidden", exclude_from_context=True)
    messages = store.build_context().messages
    assert [type(m) for m in messages] == [UserMessage, CustomMessage, CustomMessage]
    from pitui.core.messages import convert_to_llm

    assert len(convert_to_llm(messages)) == 2


async def test_fork_keeps_path_ids_and_labels(tmp_path: Path) -> None:
    store = SessionStore.create("/p", tmp_path)
    a = await store.append_message(_user("a"))
    b = await store.append_message(_reply("b"))
    await store.set_label(a, "start")
    c = await store.append_message(_user("c"))
    await store.set_label(c, "off-path")
    forked = await fork_store(store, b)
    assert forked.path is not None and forked.path != store.path
    assert forked.header.parent_session == str(store.path)
    objects = read_objects(forked.path)
    assert [o.get("id") for o in objects[1:3]] == [a, b]
    assert objects[3]["type"] == "label" and objects[3]["targetId"] == a
    assert objects[3]["parentId"] == b
    assert forked.get_label(a) == "start" and forked.get_label(c) is None
    await forked.close()
    await store.close()


async def test_fork_without_assistant_is_deferred(tmp_path: Path) -> None:
    store = SessionStore.create("/p", tmp_path)
    a = await store.append_message(_user("a"))
    forked = await fork_store(store, a)
    assert forked.path is not None and not forked.path.exists()
    await forked.append_message(_reply())
    assert [o["type"] for o in read_objects(forked.path)] == ["session", "message", "message"]
    await forked.close()


async def test_continue_recent_opens_newest_or_creates(tmp_path: Path) -> None:
    fresh = await SessionStore.continue_recent("/p", tmp_path)
    assert fresh.entry_count() == 0 and fresh.path is not None
    await fresh.append_message(_user())
    await fresh.append_message(_reply())
    await fresh.close()
    again = await SessionStore.continue_recent("/p", tmp_path)
    assert again.path == fresh.path and again.entry_count() == 2
    await again.close()


async def test_tree_children_sorted_by_timestamp(tmp_path: Path) -> None:
    objects = [
        HEADER,
        entry("a1", None),
        {**entry("c3", "a1"), "timestamp": "2026-01-01T00:00:09.000Z"},
        {**entry("b2", "a1"), "timestamp": "2026-01-01T00:00:05.000Z"},
    ]
    store = await SessionStore.open(_write(tmp_path / "s.jsonl", jsonl(objects)), read_only=True)
    (root,) = store.get_tree()
    assert [child.entry.id for child in root.children] == ["b2", "c3"]
    assert store.get_leaf_id() == "b2"  # the last entry in file order, as pi


async def test_concurrent_appends_are_all_durable_in_order(tmp_path: Path) -> None:
    import asyncio

    store = SessionStore.create("/p", tmp_path)
    await store.append_message(_reply())
    ids = await asyncio.gather(*(store.append_message(_user(str(n))) for n in range(10)))
    assert store.path is not None
    assert [o["id"] for o in read_objects(store.path)[2:]] == ids
    await store.close()
