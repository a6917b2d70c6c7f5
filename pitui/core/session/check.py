"""Validate a session file and write a repaired copy (``pitui session check``).

Checks: lines that are not JSON, the header, duplicate headers and ids, parent links
(missing parents, cycles), entries that do not fit their type, and tool-call pairing on
every path (each tool call answered by a tool result before the next user or assistant
message; each tool result answering a call of the assistant message before it).

What a crash leaves behind is told apart from corruption: a torn line (the cut-off
start of an entry) and tool calls a crash left unanswered are warnings. pi's context
builder copes with both (the torn line is skipped; a missing result is answered with
"No result provided" before the next message), so the file is sound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from pitui.core.session.entries import parse_entry
from pitui.core.session.ids import CURRENT_SESSION_VERSION, iso_now, new_entry_id, new_session_id
from pitui.core.session.invalid import describe_invalid
from pitui.core.session.load import LoadedFile, parse_session_bytes
from pitui.core.session.table import EntryTable
from pitui.core.session.tree import child_positions
from pitui.core.session.writer import dumps_line

_UNANSWERED_OK = frozenset({"error", "aborted"})  # pi drops such turns' calls when replaying


@dataclass
class CheckResult:
    """Everything ``check`` found: ``problems`` (corruption) and ``warnings`` (residue)."""

    loaded: LoadedFile
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """No corruption found (warnings allowed)."""
        return not self.problems


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class _Turn:
    """What pairing needs of one message entry (extracted once per line)."""

    __slots__ = ("calls", "result_for", "role", "stop")

    def __init__(self, message: dict[str, Any]) -> None:
        # Wrong-typed fields read as absent (a list is no role, and not even hashable).
        self.role = _text(message.get("role"))
        self.stop = _text(message.get("stopReason"))
        self.result_for = _text(message.get("toolCallId")) if self.role == "toolResult" else None
        content = message.get("content")
        self.calls: frozenset[str] = frozenset(
            b["id"]
            for b in (content if self.role == "assistant" and isinstance(content, list) else ())
            if isinstance(b, dict) and b.get("type") == "toolCall" and isinstance(b.get("id"), str)
        )


def _unanswered(
    turns: list[_Turn | None], ids: list[str], children: list[list[int]], start: int
) -> str:
    """Where a path from ``start`` leaves some of its calls unanswered ('' if none does)."""
    first = turns[start]
    assert first is not None
    stack = [(c, first.calls) for c in children[start]]
    while stack:
        position, pending = stack.pop()
        turn = turns[position]
        if turn is not None and turn.role == "toolResult":
            pending = pending - {turn.result_for}
        elif turn is not None and turn.role in ("user", "assistant"):
            if pending:
                return f"before entry {ids[position]}: {', '.join(sorted(pending))}"
            continue
        if pending and not children[position]:
            return f"at leaf {ids[position]}: {', '.join(sorted(pending))}"
        if pending:
            stack.extend((c, pending) for c in children[position])
    return ""


def _owner(turns: list[_Turn | None], ppos: list[int], position: int) -> _Turn | None:
    """The nearest message above a tool result that is not a tool result (if assistant)."""
    current, steps = ppos[position], 0
    while current >= 0 and steps <= len(ppos):
        turn = turns[current]
        if turn is not None and turn.role != "toolResult":
            return turn if turn.role == "assistant" else None
        current, steps = ppos[current], steps + 1
    return None


def tool_pairing_problems(
    table: EntryTable, turns: list[_Turn | None]
) -> tuple[list[str], list[str]]:
    """``(unanswered calls, results without a call)``, on every path."""
    _, children = child_positions(table)
    ppos, ids = table.parent_positions(), table.ids
    unanswered: list[str] = []
    orphans: list[str] = []
    for position, turn in enumerate(turns):
        if turn is None:
            continue
        if turn.calls and turn.stop not in _UNANSWERED_OK:
            where = _unanswered(turns, ids, children, position)
            if where:
                unanswered.append(f"entry {ids[position]}: tool call(s) unanswered {where}")
        elif turn.role == "toolResult":
            owner = _owner(turns, ppos, position)
            if owner is None or turn.result_for not in owner.calls:
                orphans.append(
                    f"entry {ids[position]}: tool result {turn.result_for} "
                    "answers no call of the assistant message before it"
                )
    return unanswered, orphans


def _validate(loaded: LoadedFile, problems: list[str]) -> list[_Turn | None]:
    """Validate every entry (without keeping it) and extract the pairing facts."""
    table, numbers = loaded.table, loaded.line_numbers
    turns: list[_Turn | None] = []
    for position in range(len(table)):
        raw = table.raw(position)
        try:
            parse_entry(raw)
        except ValidationError as exc:
            where = f"line {numbers[position]}: " if position < len(numbers) else ""
            problems.append(
                f"{where}entry {table.ids[position]} ({table.types[position]}) is ignored: "
                f"{describe_invalid(raw, exc)}"
            )
        message = raw.get("message") if table.types[position] == "message" else None
        turns.append(_Turn(message) if isinstance(message, dict) else None)
    return turns


def check_bytes(data: bytes, name: str = "") -> CheckResult:
    """Check a session file's content."""
    loaded = parse_session_bytes(data, lenient=True, name=name)
    result = CheckResult(loaded, loaded.report.problems(), loaded.report.residue())
    turns = _validate(loaded, result.problems)
    unanswered, orphans = tool_pairing_problems(loaded.table, turns)
    result.warnings += unanswered
    result.problems += orphans
    return result


def _repaired_header(loaded: LoadedFile) -> dict[str, Any]:
    if loaded.header is not None:
        return loaded.header
    first = loaded.table.raw(0) if len(loaded.table) else {}
    stamp = first.get("timestamp")
    header: dict[str, Any] = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": new_session_id(),
        "timestamp": stamp if isinstance(stamp, str) else iso_now(),
        "cwd": "",
    }
    # What a rejected header got right is kept (its id names the session in listings).
    old = loaded.bad_header or {}
    for key in ("id", "timestamp", "cwd", "parentSession"):
        if isinstance(old.get(key), str):
            header[key] = old[key]
    return header


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
