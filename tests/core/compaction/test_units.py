"""Unit tests: JavaScript string semantics, serialisation, file lists, cut points."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pitui.core.compaction.cut import PathView, find_cut_point, prepare_compaction
from pitui.core.compaction.files import (
    FileOperations,
    compute_file_lists,
    extract_from_lines,
    extract_from_raw,
    format_file_operations,
)
from pitui.core.compaction.jsjson import (
    js_number,
    js_stringify,
    js_stringify_walk,
    utf16_len,
    utf16_slice,
)
from pitui.core.compaction.serialize import serialize_conversation, truncate_for_summary
from pitui.core.compaction.tokens import estimate_tokens
from pitui.core.session.entries import parse_entry
from pitui.core.session.table import EntryTable
from pitui.core.settings import CompactionSettings


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1"), (2.5, "2.5"), (1e21, "1e+21"), (1.5e-7, "1.5e-7"), (1e-6, "0.000001"),
     (-0.0, "0"), (123456789.125, "123456789.125"), (float("nan"), "null")],
)  # fmt: skip
def test_numbers_print_like_javascript(value: float, text: str) -> None:
    assert js_number(value) == text


def test_stringify_orders_integer_keys_first_and_escapes_lone_surrogates() -> None:
    value = {"b": 1, "10": [1.0, None, True], "2": "x\ud83d", "a": {"k": "😀"}}
    assert js_stringify(value) == '{"2":"x\\ud83d","10":[1,null,true],"b":1,"a":{"k":"😀"}}'


_PLAIN_VALUES = st.one_of(
    st.text(), st.integers(), st.booleans(), st.none(), st.floats(), st.integers(min_value=2**64)
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(), _PLAIN_VALUES))
def test_stringify_fast_path_of_flat_dicts_equals_the_walk(value: dict[str, Any]) -> None:
    # Tool-call arguments go through orjson when they can: the text must be the walk's.
    assert js_stringify(value) == js_stringify_walk(value)


def test_stringify_fast_path_edges() -> None:
    for value in ({"a": "\u2028\x7f\x00\n\u0085"}, {"a": 2**70}, {"a": "\ud800"}, {"7": 1}):
        assert js_stringify(value) == js_stringify_walk(value)
    assert js_stringify({"a": "\ud800", "b": True}) == '{"a":"\\ud800","b":true}'


def test_lengths_and_slices_count_utf16_units() -> None:
    assert utf16_len("a😀b") == 4
    assert utf16_slice("a😀b", 2) == "a\ud83d"  # JS slice splits the pair
    assert utf16_slice("abc", 2) == "ab"


def test_tool_result_of_5000_chars_is_cut_at_2000() -> None:
    result = ToolResultMessage(
        tool_call_id="c", tool_name="bash", content=[TextContent(text="x" * 5000)]
    )
    user = UserMessage(content="u" * 5000)
    text = serialize_conversation([user, result])
    assert text == (
        "[User]: " + "u" * 5000 + "\n\n[Tool result]: " + "x" * 2000
        + "\n\n[... 3000 more characters truncated]"
    )  # fmt: skip
    assert truncate_for_summary("y" * 2000) == "y" * 2000


def test_assistant_serialisation_and_estimate() -> None:
    message = AssistantMessage(
        api="a",
        provider="p",
        model="m",
        content=[
            TextContent(text="hi"),
            ToolCall(id="1", name="read", arguments={"path": "a.ts", "offset": 10}),
            ToolCall(id="2", name="ls", arguments={}),
        ],
    )
    assert serialize_conversation([message]) == (
        '[Assistant]: hi\n\n[Assistant tool calls]: read(path="a.ts", offset=10); ls()'
    )
    args = len('{"path":"a.ts","offset":10}') + len("{}")
    assert estimate_tokens(message) == -(-(2 + 4 + 2 + args) // 4)


def test_file_lists_sort_by_code_units_and_format() -> None:
    ops = FileOperations()
    for tool, path in [("read", "b"), ("read", "a"), ("edit", "b"), ("write", "Z"), ("read", "")]:
        ops.add(tool, path)
    assert compute_file_lists(ops) == (["a"], ["Z", "b"])
    assert format_file_operations(["a"], ["Z", "b"]) == (
        "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nZ\nb\n</modified-files>"
    )
    assert format_file_operations([], []) == ""


def _line(content: list[dict[str, Any]], spaces: bool = False) -> bytes:
    entry = {"type": "message", "message": {"role": "assistant", "content": content}}
    separators = (", ", ": ") if spaces else (",", ":")
    return json.dumps(entry, separators=separators, ensure_ascii=False).encode()


@pytest.mark.parametrize(
    "arguments",
    [{"path": "a.py"}, {"offset": 1, "path": "b.py"}, {"path": 'c\\\\d"e'}, {"path": ""}],
)
@pytest.mark.parametrize("spaces", [False, True])
def test_line_scan_equals_parsing(arguments: dict[str, Any], spaces: bool) -> None:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": '"type":"toolCall" in text'},
        {"type": "toolCall", "id": "x", "name": "edit", "arguments": arguments},
        {"type": "toolCall", "id": "y", "name": "bash", "arguments": {"command": "ls"}},
        {"type": "toolCall", "id": "z", "name": "read", "arguments": {"path": "ü.md"}},
    ]
    lines = [_line(content, spaces), _line([{"type": "text", "text": "toolCall"}])]
    fast, slow = FileOperations(), FileOperations()
    extract_from_lines(lines, fast)
    for line in lines:
        extract_from_raw(json.loads(line)["message"], slow)
    assert fast.to_json() == slow.to_json()


# --------------------------------------------------------------------------- cut points


def _view(
    messages: list[dict[str, Any]], extra: dict[int, dict[str, Any]] | None = None
) -> PathView:
    table = EntryTable()
    parent: str | None = None
    items: list[dict[str, Any]] = [{"type": "message", "message": m} for m in messages]
    for at, entry in sorted((extra or {}).items(), reverse=True):
        items.insert(at, entry)
    for number, item in enumerate(items):
        entry = {"id": f"e{number}", "parentId": parent, "timestamp": "", **item}
        table.add_entry(parse_entry(entry))
        parent = entry["id"]
    return PathView(table, range(len(items)))


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 0}


def _assistant(text: str, calls: int = 0) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [
        {"type": "toolCall", "id": f"c{i}", "name": "read", "arguments": {"path": f"f{i}"}}
        for i in range(calls)
    ]
    return {"role": "assistant", "content": content, "api": "a", "provider": "p", "model": "m",
            "usage": {"totalTokens": 10}, "stopReason": "stop", "timestamp": 0}  # fmt: skip


def _result(call: str) -> dict[str, Any]:
    content = [{"type": "text", "text": "r" * 400}]
    return {"role": "toolResult", "toolCallId": call, "toolName": "read",
            "content": content, "isError": False, "timestamp": 0}  # fmt: skip


def test_no_cut_points_keeps_from_start() -> None:
    view = _view([_result("c0"), _result("c1")])
    cut = find_cut_point(view, 0, len(view), 10)
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (0, -1, False)


def test_everything_fits_keeps_from_the_first_cut_point() -> None:
    view = _view([_user("a"), _assistant("b"), _user("c"), _assistant("d")])
    cut = find_cut_point(view, 0, len(view), 20_000)
    assert (cut.first_kept_entry_index, cut.is_split_turn) == (0, False)


def test_cut_at_assistant_splits_the_turn() -> None:
    messages = [_user("old " * 100), _assistant("x"), _user("go"), _assistant("step", 1)]
    messages += [_result("c0"), _assistant("more", 1), _result("c0"), _assistant("done")]
    view = _view(messages)
    cut = find_cut_point(view, 0, len(view), 150)
    assert cut.is_split_turn
    assert view.kinds[cut.first_kept_entry_index] == "message"
    assert view.role(cut.first_kept_entry_index) == "assistant"
    assert cut.turn_start_index == 2


def test_settings_entries_before_the_cut_are_kept() -> None:
    change = {"type": "thinking_level_change", "thinkingLevel": "high"}
    view = _view([_user("a" * 400), _assistant("b" * 400), _user("c" * 40)], {2: change})
    cut = find_cut_point(view, 0, len(view), 5)
    assert cut.first_kept_entry_index == 2  # the settings entry, before the user message
    prep = prepare_compaction(view, CompactionSettings(keep_recent_tokens=5))
    assert prep is not None and prep.first_kept_entry_id == "e2"


def test_nothing_to_prepare_after_a_compaction_or_on_an_empty_path() -> None:
    compaction = {"type": "compaction", "summary": "s", "firstKeptEntryId": "e0", "tokensBefore": 1}
    view = _view([_user("a")], {1: compaction})
    assert prepare_compaction(view) is None
    assert prepare_compaction(_view([])) is None
