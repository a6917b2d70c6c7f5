"""Property tests: random trees round-trip, truncation is survivable, unknown types survive."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.ai.types import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from pitui.core.messages import BashExecutionMessage
from pitui.core.session.load import parse_session_bytes
from pitui.core.session.store import SessionStore
from pitui.errors import SessionError
from tests.core.session.helpers import HEADER, assistant, entry, jsonl, read_objects

_text = st.text(max_size=30)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
# (kind, branch target index or None, text)
_ops = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "user",
                "assistant",
                "tool",
                "bash",
                "model",
                "thinking",
                "label",
                "name",
                "custom",
                "custom_message",
                "compaction",
                "summary",
            ]
        ),
        st.none() | st.integers(0, 1000),
        _text,
    ),
    min_size=1,
    max_size=25,
)
_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


async def _apply(store: SessionStore, kind: str, text: str) -> None:
    ids = [e.id for e in store.get_entries()]
    if kind == "user":
        await store.append_message(UserMessage(content=text, timestamp=1))
    elif kind == "assistant":
        message = AssistantMessage(
            content=[TextContent(text=text)], api="a", provider="p", model="m"
        )
        await store.append_message(message)
    elif kind == "tool":
        await store.append_message(ToolResultMessage(tool_call_id="c", tool_name="t"))
    elif kind == "bash":
        await store.append_message(BashExecutionMessage(command=text, exit_code=None))
    elif kind == "model":
        await store.append_model_change("p", text)
    elif kind == "thinking":
        await store.append_thinking_level_change("high")
    elif kind == "label" and ids:
        await store.set_label(ids[len(text) % len(ids)], text or None)
    elif kind == "name":
        await store.set_name(text)
    elif kind == "custom":
        await store.append_custom_entry("ext", {"t": text})
    elif kind == "custom_message":
        await store.append_custom_message("ext", text, display=bool(len(text) % 2))
    elif kind == "compaction" and ids:
        await store.append_compaction(text, ids[0], 10, {"readFiles": []}, False)
    elif kind == "summary":
        await store.branch_with_summary(store.get_leaf_id(), text)


async def _round_trip(ops: list[tuple[str, int | None, str]], directory: Path) -> None:
    store = SessionStore.create("/p", directory)
    await store.append_message(AssistantMessage(api="a", provider="p", model="m"))
    for kind, target, text in ops:
        ids = [e.id for e in store.get_entries()]
        if target is not None:
            store.branch(ids[target % len(ids)])
        await _apply(store, kind, text)
    await store.close()
    assert store.path is not None
    loaded = await SessionStore.open(store.path, read_only=True)
    assert [e.to_json_dict() for e in loaded.get_entries()] == [
        e.to_json_dict() for e in store.get_entries()
    ]
    assert loaded.report.problems() == []
    assert loaded.labels() == store.labels()
    assert loaded.get_session_name() == store.get_session_name()
    original = store.build_context(loaded.get_leaf_id())
    again = loaded.build_context()
    assert [m.to_json_dict() for m in again.messages] == [
        m.to_json_dict() for m in original.messages
    ]


@_SETTINGS
@given(_ops)
def test_random_trees_round_trip(ops: list[tuple[str, int | None, str]]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(_round_trip(ops, Path(directory)))


def _sample_file() -> tuple[bytes, list[dict[str, Any]]]:
    objects: list[dict[str, Any]] = [HEADER]
    parent = None
    for number in range(12):
        entry_id = f"{number:08x}"
        message = assistant('é ✓ "q"\n' * number) if number % 2 else None
        fields: dict[str, Any] = {"message": message} if message else {}
        objects.append(entry(entry_id, parent, **fields))
        parent = entry_id
    return jsonl(objects), objects[1:]


_DATA, _ENTRIES = _sample_file()


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(_DATA)))
def test_truncation_never_raises_and_loses_at_most_the_torn_entry(cut: int) -> None:
    data = _DATA[:cut]
    header_end = _DATA.index(b"\n") + 1
    try:
        loaded = parse_session_bytes(data)
    except SessionError:
        assert 0 < cut < header_end  # only a torn header is an error (never silent)
        return
    complete = max(0, data.count(b"\n") - 1)  # whole entry lines after the header
    ids = [e["id"] for e in _ENTRIES]
    got = loaded.table.ids
    assert got[:complete] == ids[:complete]
    assert len(got) - complete in (0, 1)  # a final line cut exactly before its newline
    assert not loaded.report.bad_lines


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=12), _json), min_size=1, max_size=5))
def test_unknown_entry_types_survive_load_append_load(kinds: list[tuple[str, Any]]) -> None:
    objects: list[dict[str, Any]] = [HEADER, entry("a0000000", None, message=assistant())]
    for number, (kind, payload) in enumerate(kinds, 1):
        name = f"x-{kind}"  # never a known type
        objects.append(entry(f"{number:08x}", objects[-1]["id"], kind=name, payload=payload))
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "s.jsonl"
        path.write_bytes(jsonl(objects))

        async def run() -> None:
            store = await SessionStore.open(path)
            await store.append_message(UserMessage(content="after", timestamp=1))
            await store.close()

        asyncio.run(run())
        back = read_objects(path)
    assert back[: len(objects)] == json.loads(json.dumps(objects))
    assert back[-1]["parentId"] == objects[-1]["id"]
