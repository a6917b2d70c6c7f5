"""Parse the bytes of a session file: lines, header, migration, index, link checks.

Pure and synchronous (the store runs it off the event loop). It never raises on bad
lines: they are skipped and reported. A torn last line (a crash mid-write) is reported
separately. Only a missing or corrupt header is an error, because guessing there could
destroy the user's session (pi overwrites such a file; pitui leaves it untouched).
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass, field
from typing import Any

import pydantic_core

from pitui.core.session.migrate import migrate_objects
from pitui.core.session.table import EntryTable
from pitui.errors import SessionError


@dataclass
class LoadReport:
    """What was wrong with a file and what loading did about it."""

    bad_lines: list[tuple[int, str]] = field(default_factory=list)
    """(1-based line number, reason) of skipped lines."""
    torn_tail: bool = False
    """The last line was cut off (no newline, not JSON): skipped."""
    missing_newline: bool = False
    """The file does not end with a newline (the next append starts a fresh line)."""
    header_problem: str | None = None
    duplicate_headers: int = 0
    duplicate_ids: list[str] = field(default_factory=list)
    missing_parents: list[str] = field(default_factory=list)
    """Entries whose parent is not in the file: treated as roots."""
    cycles: list[str] = field(default_factory=list)
    """Entries whose parent link was cut to break a parentId cycle."""
    migrated_from: int | None = None

    def problems(self) -> list[str]:
        """Human-readable lines, one per problem (empty when the file is clean)."""
        out = [f"line {n}: {why}" for n, why in self.bad_lines]
        if self.header_problem:
            out.insert(0, f"header: {self.header_problem}")
        if self.torn_tail:
            out.append("last line is torn (incomplete write); skipped")
        if self.duplicate_headers:
            out.append(f"{self.duplicate_headers} duplicate session header line(s)")
        out += [f"duplicate entry id {i}" for i in self.duplicate_ids]
        out += [f"entry {i}: parent not found (treated as a root)" for i in self.missing_parents]
        out += [f"entry {i}: parentId cycle (link cut here)" for i in self.cycles]
        return out


@dataclass
class LoadedFile:
    """A parsed session file."""

    header: dict[str, Any] | None
    """The first header object (None only for an empty file or a lenient load)."""
    objects: list[dict[str, Any]]
    """Every parsed object in file order (headers included), after migration."""
    table: EntryTable
    report: LoadReport
    labels: dict[str, str]
    """Resolved labels: target id → label (last non-empty wins; empty clears)."""


def _parse_line(line: bytes) -> Any:
    try:
        return pydantic_core.from_json(line)
    except ValueError:
        # jiter rejects lone surrogates and bad UTF-8 that JSON.parse (and pi) accept.
        return json.loads(line.decode("utf-8", "replace"))


def _parse_lines(data: bytes, report: LoadReport) -> list[tuple[int, dict[str, Any]]]:
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    last = len(lines) - 1
    parsed: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines):
        if not line or line.isspace():
            continue
        try:
            obj = _parse_line(line)
        except ValueError as exc:
            if number == last and not complete:
                report.torn_tail = True
            else:
                report.bad_lines.append((number + 1, f"not JSON ({exc})"[:120]))
            continue
        if number == last and not complete:
            report.missing_newline = True
        if not isinstance(obj, dict):
            report.bad_lines.append((number + 1, "not a JSON object"))
            continue
        parsed.append((number + 1, obj))
    if not complete and data and not report.torn_tail:
        report.missing_newline = True
    return parsed


def _header_problem(obj: dict[str, Any] | None) -> str | None:
    if obj is None:
        return "no session header (no line parses as JSON)"
    if obj.get("type") != "session":
        return 'first line is not a session header ({"type":"session",…})'
    if not isinstance(obj.get("id"), str):
        return "session header has no string id"
    return None


def _build_table(
    parsed: list[tuple[int, dict[str, Any]]], report: LoadReport
) -> tuple[EntryTable, dict[str, str]]:
    table = EntryTable()
    labels: dict[str, str] = {}
    for number, obj in parsed:
        kind = obj.get("type")
        if kind == "session":
            report.duplicate_headers += 1
            continue
        entry_id = obj.get("id")
        if not isinstance(kind, str) or not isinstance(entry_id, str):
            report.bad_lines.append((number, "entry without a string type and id"))
            continue
        parent = obj.get("parentId")
        if entry_id in table.index:
            report.duplicate_ids.append(entry_id)
        table.add_raw(obj, entry_id, parent if isinstance(parent, str) else None, kind)
        if kind == "label":
            target, label = obj.get("targetId"), obj.get("label")
            if isinstance(target, str):
                if isinstance(label, str) and label:
                    labels[target] = label
                else:
                    labels.pop(target, None)
    return table, labels


def _cut_broken_links(table: EntryTable, report: LoadReport) -> None:
    index, parents, ids = table.index, table.parents, table.ids
    for position, parent in enumerate(parents):
        if parent is not None and parent not in index:
            report.missing_parents.append(ids[position])
            parents[position] = None
    state = bytearray(len(parents))  # 0 unseen, 1 on the current chain, 2 done
    for start in range(len(parents)):
        chain: list[int] = []
        current: int | None = start
        while current is not None and state[current] == 0:
            state[current] = 1
            chain.append(current)
            parent = parents[current]
            current = None if parent is None else index[parent]
        if current is not None and state[current] == 1:
            # A cycle: make its earliest entry in file order a root (in a sane file a
            # parent always precedes its child, so that is the link that points forward).
            cut = min(chain[chain.index(current) :])
            parents[cut] = None
            report.cycles.append(ids[cut])
        for position in chain:
            state[position] = 2


def parse_session_bytes(data: bytes, *, lenient: bool = False, name: str = "") -> LoadedFile:
    """Parse a session file's bytes.

    Args:
        data: The whole file.
        lenient: Do not raise on a bad header (for ``check``): report it and go on.
        name: File name for error messages.

    Raises:
        SessionError: The file has content but no valid session header (unless lenient).
    """
    report = LoadReport()
    gc_enabled = gc.isenabled()
    gc.disable()  # hundreds of thousands of fresh containers: collection passes are waste
    try:
        parsed = _parse_lines(data, report)
        first = parsed[0][1] if parsed else None
        # A file whose only content is a torn first line never held a complete line: it
        # is a crashed creation, as good as empty (nothing to protect).
        only_torn = report.torn_tail and not report.bad_lines
        problem = _header_problem(first) if (parsed or (not only_torn and data.strip())) else None
        if problem and not lenient:
            raise SessionError(
                f"{name or 'session file'}: {problem}. The file was left untouched; "
                "`pitui session check FILE --repair OUT` writes a repaired copy."
            )
        report.header_problem = problem
        header = first if problem is None else None
        objects = [obj for _, obj in parsed]
        if header is not None:
            report.migrated_from = migrate_objects(objects)
        table, labels = _build_table(parsed[1:] if header is not None else parsed, report)
        _cut_broken_links(table, report)
        return LoadedFile(header, objects, table, report, labels)
    finally:
        if gc_enabled:
            gc.enable()
