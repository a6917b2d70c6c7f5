"""Property: after compaction the context has no orphan tool results and no call without
its result, whatever the session and the budget (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ai.types import AssistantMessage, ToolCall, ToolResultMessage
from pitui.core.compaction.cut import PathView, prepare_compaction
from pitui.core.messages import convert_to_llm
from pitui.core.session.context import build_session_context
from pitui.core.session.entries import SessionEntry, parse_entry
from pitui.core.session.table import EntryTable
from pitui.core.settings import CompactionSettings

_NOISE = st.sampled_from(["label", "thinking", "custom_message", "bash", "none", "none"])
# Between a call and its result only entries that are not messages (as in real sessions:
# the app holds ``!`` output and injected messages until the tool results are in).
_QUIET = st.sampled_from(["label", "thinking", "none"])


@st.composite
def turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One user turn: prompt, tool rounds (results maybe mixed with other entries), reply."""
    out: list[dict[str, Any]] = [{"role": "user", "content": "u" * draw(st.integers(1, 400))}]
    for _ in range(draw(st.integers(0, 3))):
        calls = draw(st.integers(1, 3))
        ids = [f"call{draw(st.integers(0, 10**9))}_{i}" for i in range(calls)]
        content = [{"type": "toolCall", "id": i, "name": "read", "arguments": {"path": i}}
                   for i in ids]  # fmt: skip
        out.append(_assistant(content))
        for call_id in ids:
            if draw(st.booleans()):
                out.append({"noise": draw(_QUIET)})
            text = "r" * draw(st.integers(0, 3000))
            out.append({"role": "toolResult", "toolCallId": call_id, "toolName": "read",
                        "content": [{"type": "text", "text": text}], "isError": False})  # fmt: skip
    out.append(_assistant([{"type": "text", "text": "a" * draw(st.integers(0, 800))}]))
    if draw(st.booleans()):
        out.append({"noise": draw(_NOISE)})
    return out


def _assistant(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "a", "provider": "p", "model": "m",
            "usage": {"totalTokens": 100}, "stopReason": "stop"}  # fmt: skip


class _Session:
    def __init__(self) -> None:
        self.entries: list[SessionEntry] = []
        self.table = EntryTable()

    def add(self, kind: str, **fields: Any) -> None:
        number = len(self.entries)
        parent = self.entries[-1].id if self.entries else None
        data = {"type": kind, "id": f"{number:08x}", "parentId": parent,
                "timestamp": f"2026-01-01T00:00:{number % 60:02d}.000Z", **fields}  # fmt: skip
        entry = parse_entry(data)
        self.entries.append(entry)
        self.table.add_entry(entry)

    def add_item(self, item: dict[str, Any]) -> None:
        noise = item.get("noise")
        if noise is None:
            self.add("message", message={**item, "timestamp": 0})
        elif noise == "label":
            self.add("label", targetId=self.entries[-1].id, label="x")
        elif noise == "thinking":
            self.add("thinking_level_change", thinkingLevel="high")
        elif noise == "custom_message":
            self.add("custom_message", customType="n", content="note", display=True)
        elif noise == "bash":
            bash = {"role": "bashExecution", "command": "ls", "output": "o", "exitCode": 0,
                    "cancelled": False, "truncated": False, "timestamp": 0}  # fmt: skip
            self.add("message", message=bash)

    def compact(self, keep: int) -> bool:
        view = PathView(self.table, range(len(self.entries)))
        prep = prepare_compaction(view, CompactionSettings(keep_recent_tokens=keep))
        if prep is None:
            return False
        self.add("compaction", summary="S", firstKeptEntryId=prep.first_kept_entry_id,
                 tokensBefore=prep.tokens_before)  # fmt: skip
        return True


def _check(session: _Session) -> None:
    messages = convert_to_llm(build_session_context(session.entries).messages)
    assert messages and not isinstance(messages[0], ToolResultMessage)
    open_calls: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            assert not open_calls, "a tool call lost its result"
            open_calls = {b.id for b in message.content if isinstance(b, ToolCall)}
        elif isinstance(message, ToolResultMessage):
            assert message.tool_call_id in open_calls, "orphan tool result"
            answered.add(message.tool_call_id)
            open_calls.discard(message.tool_call_id)
        else:
            assert not open_calls, "a tool call lost its result"
    assert not open_calls


@settings(max_examples=60, deadline=None)
@given(
    st.lists(turns(), min_size=1, max_size=12),
    st.lists(turns(), min_size=0, max_size=6),
    st.integers(0, 3000),
    st.integers(0, 3000),
)
def test_compaction_never_orphans_tool_results(
    before: list[list[dict[str, Any]]],
    after: list[list[dict[str, Any]]],
    keep_first: int,
    keep_second: int,
) -> None:
    session = _Session()
    for turn in before:
        for item in turn:
            session.add_item(item)
    if session.compact(keep_first):
        _check(session)
    for turn in after:
        for item in turn:
            session.add_item(item)
    if after and session.compact(keep_second):
        _check(session)
