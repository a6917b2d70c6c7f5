"""The fast paths of compaction preparation give what the plain ones give.

The tool-call scan over joined file lines equals parsing every line; a path view gathered
by runs of table positions equals one gathered entry by entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core.compaction.cut import PathView, path_view, prepare_compaction
from pitui.core.compaction.files import FileOperations, extract_from_lines, extract_from_raw
from pitui.core.session.store import SessionStore
from pitui.core.settings import CompactionSettings

GENERATED = Path(__file__).parent / "fixtures"

_NAMES = st.sampled_from(
    ["read", "write", "edit", "bash", "toolCall", "", "Read", "re\\u0061d", 're"ad', "read\\"]
)
# Quotes and backslashes where a scan that stops at the first quote could be misled.
_TRICKY = ['q"uote', "back\\slash", 'x",y', 'x"}', "end\\", '\\"', 'a","b":"c']
_PATHS = st.one_of(
    st.sampled_from(["a.py", "", "toolCall", "ü/é.md", "😀.txt", *_TRICKY]),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=6),
    st.integers(),
    st.none(),
)
_TEXTS = st.sampled_from(
    ['"type":"toolCall","id":"x","name":"read"', "toolCall", '{"path":"t.py"}', "plain", ""]
)


@st.composite
def _arguments(draw: st.DrawFn) -> object:
    shape = draw(st.sampled_from(["path first", "path later", "no path", "nested", "not dict"]))
    path = draw(_PATHS)
    if shape == "path first":
        return {"path": path, **draw(st.dictionaries(st.sampled_from(["offset", "x"]), _PATHS))}
    if shape == "path later":
        return {"offset": 1, "path": path}
    if shape == "nested":
        return {"path": path, "edits": [{"type": "toolCall", "oldText": "a", "newText": "b"}]}
    if shape == "not dict":
        return draw(st.sampled_from(["read", [path], None]))
    return {"command": "ls"}


@st.composite
def _block(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["call", "call", "call", "odd call", "text", "thinking"]))
    if kind == "text":
        return {"type": "text", "text": draw(_TEXTS)}
    if kind == "thinking":
        return {"type": "thinking", "thinking": draw(_TEXTS)}
    name = draw(_NAMES)
    if name == "re\\u0061d":
        name = "read"  # written escaped below
    call_id = draw(st.sampled_from(["toolu_1", "call|fc", "", *_TRICKY]))
    block = {"type": "toolCall", "id": call_id, "name": name, "arguments": draw(_arguments())}
    if kind == "odd call":  # keys in another order: not pi's layout
        return {"name": name, "type": "toolCall", "arguments": block["arguments"], "id": call_id}
    return block


def _line(content: list[dict[str, Any]], spaces: bool, escape_names: bool) -> bytes:
    entry = {"type": "message", "id": "e", "message": {"role": "assistant", "content": content}}
    separators = (", ", ": ") if spaces else (",", ":")
    text = json.dumps(entry, separators=separators, ensure_ascii=False)
    if escape_names:
        text = text.replace('"name":"read"', '"name":"re\\u0061d"')
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_block(), max_size=5), min_size=1, max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_scan_equals_parsing(
    contents: list[list[dict[str, Any]]], spaces: bool, escape_names: bool
) -> None:
    lines = [_line(content, spaces, escape_names) for content in contents]
    fast, slow = FileOperations(), FileOperations()
    extract_from_lines(lines, fast)
    for line in lines:
        extract_from_raw(json.loads(line)["message"], slow)
    assert fast.to_json() == slow.to_json()  # same paths, same first-seen order


@pytest.mark.parametrize("value", _TRICKY)
@pytest.mark.parametrize("where", ["id", "name", "path"])
def test_scan_of_quotes_and_backslashes(value: str, where: str) -> None:
    fields = {"id": "t1", "name": "read", "path": "p.py", where: value}
    call = {"type": "toolCall", "id": fields["id"], "name": fields["name"]}
    content = [{**call, "arguments": {"path": fields["path"], "offset": 2}}]
    content.append({"type": "toolCall", "id": "t2", "name": "edit", "arguments": {"path": "q"}})
    lines = [_line(content, False, False)]
    fast, slow = FileOperations(), FileOperations()
    extract_from_lines(lines, fast)
    extract_from_raw(json.loads(lines[0])["message"], slow)
    assert fast.to_json() == slow.to_json()


def test_scan_reads_an_escaped_name_as_its_text() -> None:
    content = [{"type": "toolCall", "id": "t", "name": "read", "arguments": {"path": "e.py"}}]
    ops = FileOperations()
    extract_from_lines([_line(content, False, escape_names=True)], ops)
    assert ops.to_json() == {"read": ["e.py"], "written": [], "edited": []}


def test_scan_keeps_first_seen_order_over_repeats() -> None:
    calls = [("read", "b"), ("edit", "a"), ("read", "a"), ("read", "b"), ("write", "c")]
    content = [
        {"type": "toolCall", "id": f"t{i}", "name": name, "arguments": {"path": path}}
        for i, (name, path) in enumerate(calls)
    ]
    ops = FileOperations()
    extract_from_lines([_line(content, False, False)], ops)
    assert ops.to_json() == {"read": ["b", "a"], "written": ["c"], "edited": ["a"]}


def _ids() -> list[str]:
    return sorted(p.name for p in GENERATED.glob("gen-*.jsonl"))


@pytest.mark.parametrize("file", _ids())
async def test_path_view_runs_equal_plain_gathering(file: str) -> None:
    store = await SessionStore.open(GENERATED / file, read_only=True)
    table = store.table
    for position in range(0, len(table), 5):
        view = path_view(table, table.ids[position])
        assert view.kinds == [table.types[p] for p in view.positions]
        n = len(view)
        for start, end in [(0, n), (n // 3, n), (1, max(1, n - 2)), (n // 2, n // 2)]:
            runs = view.table_runs(start, end)
            assert runs is not None
            assert [p for run in runs for p in run] == view.positions[start:end]
    await store.close()


@pytest.mark.parametrize("file", _ids())
@pytest.mark.parametrize("keep", [1, 200, 2000, 20000])
async def test_preparation_with_runs_equals_without(file: str, keep: int) -> None:
    store = await SessionStore.open(GENERATED / file, read_only=True)
    table = store.table
    settings_ = CompactionSettings(keep_recent_tokens=keep)
    for position in range(0, len(table), 9):
        fast_view = path_view(table, table.ids[position])
        plain_view = PathView(table, list(fast_view.positions))
        assert plain_view.runs is None
        fast = prepare_compaction(fast_view, settings_)
        plain = prepare_compaction(plain_view, settings_)
        if fast is None or plain is None:
            assert fast is plain
            continue
        assert fast.cut == plain.cut
        assert fast.first_kept_entry_id == plain.first_kept_entry_id
        assert fast.tokens_before == plain.tokens_before
        assert fast.previous_summary == plain.previous_summary
        assert fast.summarize_indices == plain.summarize_indices
        assert fast.turn_prefix_indices == plain.turn_prefix_indices
        assert fast.file_ops.to_json() == plain.file_ops.to_json()
    await store.close()
