"""Validate a session file and write a repaired copy (``pitui session check``).

Checks: lines that are not JSON, the header, duplicate headers and ids, parent links
(missing parents, cycles), entries that do not fit their type, and tool-call pairing on
every path (each tool call answered by a tool result before the next user or assistant
message; each tool result answering a call of the assistant message before it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pitui.core.session.ids import CURRENT_SESSION_VERSION, iso_now, new_entry_id, new_session_id
from pitui.core.session.load import LoadedFile, parse_session_bytes
from pitui.core.session.table import EntryTable
from pitui.core.session.tree import child_positions
from pitui.core.session.writer import dumps_line

_UNANSWERED_OK = frozenset({"error", "aborted"})  # pi drops such turns' calls when replaying


@dataclass
class CheckResult:
    """Everything ``check`` found; ``problems`` is empty for a clean file."""

    loaded: LoadedFile
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """No problem found."""
        return not self.problems


def _message(table: EntryTable, position: int) -> dict[str, Any] | None:
    if table.types[position] != "message":
        return None
    message = table.raw(position).get("message")
    return message if isinstance(message, dict) else None


def _call_ids(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, list):
        return []
    return [
        b["id"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "toolCall" and isinstance(b.get("id"), str)
    ]


def _unanswered(table: EntryTable, start: int, children: list[list[int]], calls: set[str]) -> str:
    """Where a path from ``start`` leaves some of ``calls`` unanswered ('' if none does)."""
    stack: list[tuple[int, frozenset[str]]] = [(c, frozenset(calls)) for c in children[start]]
    while stack:
        position, pending = stack.pop()
        message = _message(table, position)
        role = message.get("role") if message else None
        if role == "toolResult" and message is not None:
            pending = pending - {message.get("toolCallId")}
        elif role in ("user", "assistant"):
            if pending:
                return f"before entry {table.ids[position]}: {', '.join(sorted(pending))}"
            continue
        if pending and not children[position]:
            return f"at leaf {table.ids[position]}: {', '.join(sorted(pending))}"
        if pending:
            stack.extend((c, pending) for c in children[position])
    return ""


def _nearest_assistant(table: EntryTable, position: int) -> dict[str, Any] | None:
    seen: set[int] = set()
    current = table.parent_position(position)
    while current is not None and current not in seen:
        seen.add(current)
        message = _message(table, current)
        if message is not None and message.get("role") != "toolResult":
            return message if message.get("role") == "assistant" else None
        current = table.parent_position(current)
    return None


def tool_pairing_problems(table: EntryTable) -> list[str]:
    """Tool calls without results and results without calls, on every path."""
    _, children = child_positions(table)
    problems: list[str] = []
    for position in range(len(table)):
        message = _message(table, position)
        if message is None:
            continue
        role = message.get("role")
        if role == "assistant" and message.get("stopReason") not in _UNANSWERED_OK:
            calls = set(_call_ids(message))
            where = _unanswered(table, position, children, calls) if calls else ""
            if where:
                problems.append(f"entry {table.ids[position]}: tool call(s) unanswered {where}")
        elif role == "toolResult":
            owner = _nearest_assistant(table, position)
            if owner is None or message.get("toolCallId") not in _call_ids(owner):
                problems.append(
                    f"entry {table.ids[position]}: tool result {message.get('toolCallId')} "
                    "answers no call of the assistant message before it"
                )
    return problems


def check_bytes(data: bytes, name: str = "") -> CheckResult:
    """Check a session file's content."""
    loaded = parse_session_bytes(data, lenient=True, name=name)
    result = CheckResult(loaded, loaded.report.problems())
    table = loaded.table
    for position in range(len(table)):
        table.entry(position)  # validates; failures land in table.invalid
    result.problems += [
        f"entry {table.ids[p]}: does not fit type {table.types[p]!r}: {why}"
        for p, why in sorted(table.invalid.items())
    ]
    result.problems += tool_pairing_problems(table)
    return result


def _repaired_header(loaded: LoadedFile) -> dict[str, Any]:
    if loaded.header is not None:
        return loaded.header
    first = loaded.table.raw(0) if len(loaded.table) else {}
    stamp = first.get("timestamp")
    return {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": new_session_id(),
        "timestamp": stamp if isinstance(stamp, str) else iso_now(),
        "cwd": "",
    }


def repaired_bytes(loaded: LoadedFile) -> bytes:
    """A clean copy: one header, v3, bad lines and torn tail gone, links fixed, ids unique."""
    table = loaded.table
    lines = [dumps_line(_repaired_header(loaded))]
    taken = set(table.index)
    for position in range(len(table)):
        raw = dict(table.raw(position))
        if table.index[table.ids[position]] != position:
            # A duplicate id resolves to its last occurrence (as in pi), so every reference
            # keeps meaning the same entry when the earlier occurrences get fresh ids.
            raw["id"] = new_entry_id(taken)
            taken.add(raw["id"])
        raw["parentId"] = table.parents[position]  # effective: missing/cyclic links cut
        lines.append(dumps_line(raw))
    return b"".join(lines)
