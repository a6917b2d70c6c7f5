"""Forking a path that holds a label entry (issue 22 item 3).

Labels are tree entries: a message sent after labelling is the label's child. The copy
drops label entries and writes fresh ones at its end, so the kept entries must be
re-chained (pi 1.6's ``createBranchedSession``), or the first entry after a label loses
its parent and the context its start.
"""

from __future__ import annotations

from pathlib import Path

from pitui.core.session.check import check_bytes
from pitui.core.session.fork import fork_store
from pitui.core.session.store import SessionStore
from tests.core.session.test_store import _reply, _user


async def _labelled(tmp_path: Path) -> tuple[SessionStore, list[str]]:
    store = SessionStore.create("/p", tmp_path)
    a = await store.append_message(_user("first"))
    b = await store.append_message(_reply("first reply"))
    await store.set_label(a, "start")  # the label is b's child ...
    c = await store.append_message(_user("second"))  # ... and c the label's
    d = await store.append_message(_reply("second reply"))
    return store, [a, b, c, d]


async def test_fork_through_a_label_rechains_the_kept_entries(tmp_path: Path) -> None:
    store, (a, b, c, d) = await _labelled(tmp_path)
    forked = await fork_store(store, d)
    assert forked.path is not None
    data = forked.path.read_bytes()
    result = check_bytes(data)
    assert result.problems == [] and result.warnings == []
    entries = [e for e in forked.get_entries() if e.type != "label"]
    assert [(e.id, e.parent_id) for e in entries] == [(a, None), (b, a), (c, b), (d, c)]
    texts = [m.role for m in forked.build_context().messages]
    assert texts == ["user", "assistant", "user", "assistant"]
    assert forked.get_label(a) == "start"
    reopened = await SessionStore.open(forked.path, read_only=True)
    assert len(reopened.build_context().messages) == 4
    await forked.close()
    await store.close()


async def test_fork_keeps_the_label_timestamp(tmp_path: Path) -> None:
    store, (*_rest, d) = await _labelled(tmp_path)
    original = next(e for e in store.get_entries() if e.type == "label")
    forked = await fork_store(store, d)
    copied = next(e for e in forked.get_entries() if e.type == "label")
    assert copied.timestamp == original.timestamp and copied.id != ""
    await forked.close()
    await store.close()


async def test_in_memory_fork_rechains_too(tmp_path: Path) -> None:
    store = SessionStore.in_memory("/p")
    a = await store.append_message(_user("first"))
    await store.append_message(_reply("r"))
    await store.set_label(a, "x")
    c = await store.append_message(_user("second"))
    forked = await fork_store(store, c)
    assert [m.role for m in forked.build_context().messages] == ["user", "assistant", "user"]


async def test_fork_of_a_broken_link_makes_it_a_root(tmp_path: Path) -> None:
    from tests.core.session.helpers import HEADER, assistant, entry, jsonl

    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl([HEADER, entry("a", "gone"), entry("b", "a", message=assistant())]))
    store = await SessionStore.open(path, read_only=True)
    forked = await fork_store(store, "b")
    assert forked.path is not None
    assert check_bytes(forked.path.read_bytes()).problems == []
    await forked.close()


async def test_clone_after_a_label_keeps_the_first_exchange(tmp_path: Path) -> None:
    """The issue's steps, through the session the TUI drives: a message, a label, another
    message, ``/clone``."""
    from pitui.ai.models import ModelRegistry
    from pitui.core.session.entries import MessageEntry
    from pitui.core.session_setup import SessionOptions, create_agent_session

    options = SessionOptions(
        cwd=tmp_path, registry=ModelRegistry(), session_dir=tmp_path / "s", model="demo/demo"
    )
    session = await create_agent_session(options)
    await session.prompt("list files")
    first = next(e for e in session.store.get_entries() if isinstance(e, MessageEntry))
    await session.set_label(first.id, "start")
    await session.prompt("what does main.py do?")
    await session.clone()
    path = session.session_file
    assert path is not None
    assert check_bytes(path.read_bytes()).problems == []
    roles = [m.role for m in session.store.build_context().messages]
    assert roles[0] == "user" and roles.count("user") == 2
    await session.close()
