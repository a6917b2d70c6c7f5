"""Parse the bytes of a session file: lines, header, migration, index, link checks.

Entry lines of a current-version file are indexed from their heads (msgspec decodes
type, id, parent, role and label target and skips the rest in C, about four times the
speed of a full parse); anything it refuses goes through the full parser, which decides.
Pure and synchronous (the store runs it off the event loop). It never raises on bad
lines: they are skipped and reported. A torn last line (a crash mid-write) is reported
separately. Only a missing or corrupt header is an error, because guessing there could
destroy the user's session (pi overwrites such a file; pitui leaves it untouched).
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import operator
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from pitui.core.session.bulk import bulk_allocation
from pitui.core.session.ids import CURRENT_SESSION_VERSION
from pitui.core.session.migrate import file_version, migrate_objects
from pitui.core.session.table import (
    FAST_DECODE_ERRORS,
    EntryTable,
    parse_json_line,
    positions_of,
)
from pitui.core.session.writer import dumps_line
from pitui.errors import SessionError


class LoadReport(msgspec.Struct):
    """What was wrong with a file and what loading did about it."""

    bad_lines: list[tuple[int, str]] = msgspec.field(default_factory=list)
    """(1-based line number, reason) of skipped lines."""
    torn_tail: bool = False
    """The last line was cut off (no newline, not JSON): skipped."""
    torn_lines: list[int] = msgspec.field(default_factory=list)
    """1-based numbers of lines that are the cut-off start of an entry, inside the file:
    a crash's torn tail that a later append left behind (crash residue, skipped)."""
    missing_newline: bool = False
    """The file does not end with a newline (the next append starts a fresh line)."""
    header_problem: str | None = None
    duplicate_headers: int = 0
    duplicate_ids: list[str] = msgspec.field(default_factory=list)
    missing_parents: list[str] = msgspec.field(default_factory=list)
    """Entries whose parent is not in the file: treated as roots."""
    cycles: list[str] = msgspec.field(default_factory=list)
    """Entries whose parent link was cut to break a parentId cycle."""
    migrated_from: int | None = None

    def residue(self) -> list[str]:
        """Crash leftovers that lose nothing written whole (warnings, not corruption)."""
        out = [
            f"line {n}: the torn start of an entry a crash cut off; skipped"
            for n in self.torn_lines
        ]
        if self.torn_tail:
            out.append("last line is torn (incomplete write); skipped")
        return out

    def problems(self) -> list[str]:
        """Human-readable lines, one per problem (empty when the file is sound)."""
        out = [f"line {n}: {why}" for n, why in self.bad_lines]
        if self.header_problem:
            out.insert(0, f"header: {self.header_problem}")
        if self.duplicate_headers:
            out.append(f"{self.duplicate_headers} duplicate session header line(s)")
        out += [f"duplicate entry id {i}" for i in self.duplicate_ids]
        out += [f"entry {i}: parent not found (treated as a root)" for i in self.missing_parents]
        out += [f"entry {i}: parentId cycle (link cut here)" for i in self.cycles]
        return out


class LoadedFile(msgspec.Struct):
    """A parsed session file."""

    header: dict[str, Any] | None
    """The first header object (None only for an empty file or a lenient load)."""
    objects: list[dict[str, Any] | bytes]
    """After a migration: every line of the file in order (headers included), objects
    migrated, lines that are no JSON object kept as their bytes; else empty."""
    table: EntryTable
    report: LoadReport
    labels: dict[str, str]
    """Resolved labels: target id → label (last non-empty wins; empty clears)."""
    line_numbers: list[int] = msgspec.field(default_factory=list)
    """Each entry's 1-based line in the file (only from a lenient load, for ``check``)."""
    bad_header: dict[str, Any] | None = None
    """A lenient load's rejected header line (what a repair keeps of it)."""

    def migrated_bytes(self) -> bytes:
        """The migrated file: every object as a line, every unparseable line kept as it was."""
        return b"".join(
            piece + b"\n" if isinstance(piece, bytes) else dumps_line(piece)
            for piece in self.objects
        )


class _Role(msgspec.Struct):
    """The one field of a message that indexing needs."""

    role: Any = None


class EntryHead(msgspec.Struct):
    """What indexing an entry line needs (:func:`_build_table`): decoded without building
    the rest of the line, which is only checked to be JSON (msgspec skips it in C)."""

    type: Any = None
    id: Any = None
    parentId: Any = None
    message: _Role | list[Any] | str | int | float | bool | None = None
    targetId: Any = None
    label: Any = None


_decode_head = msgspec.json.Decoder(EntryHead).decode


def _head_of(obj: dict[str, Any]) -> EntryHead:
    message = obj.get("message")
    return EntryHead(
        type=obj.get("type"),
        id=obj.get("id"),
        parentId=obj.get("parentId"),
        message=_Role(message.get("role")) if message.__class__ is dict else message,
        targetId=obj.get("targetId"),
        label=obj.get("label"),
    )


def parse_head(line: bytes) -> EntryHead | Any:
    """An entry line's :class:`EntryHead` (any other JSON value as itself).

    Accepts and rejects exactly the lines :func:`parse_json_line` does: msgspec is the fast
    path for well-formed lines; whatever it refuses (not JSON for it, or a value JSON.parse
    takes that it does not, such as a lone surrogate escape) goes through the full parser.

    Raises:
        ValueError: Not JSON.
    """
    try:
        return _decode_head(line)
    except FAST_DECODE_ERRORS:
        obj = parse_json_line(line)
        return _head_of(obj) if obj.__class__ is dict else obj


_Parsed = tuple[int, bytes, Any]  # (line number, line, object or EntryHead)


def _iter_objects(
    lines: list[bytes],
    report: LoadReport,
    skipped: list[tuple[int, bytes]] | None = None,
    *,
    start: int = 0,
    heads: bool = False,
) -> Iterator[_Parsed]:
    """Each line from ``start`` that is a JSON object (as a dict, or with ``heads`` as its
    :class:`EntryHead`); other lines are reported (a torn last one apart) and, with
    ``skipped``, collected as (line number, bytes)."""
    complete = _ends_with_newline(lines)
    last = len(lines) - 1
    parse: Callable[[bytes], Any] = parse_head if heads else parse_json_line
    kind = EntryHead if heads else dict
    for number in range(start, len(lines)):
        line = lines[number]
        if not line or line.isspace():
            continue
        try:
            obj = parse(line)
        except ValueError as exc:
            if number == last and not complete:
                report.torn_tail = True
            elif looks_torn(line):
                report.torn_lines.append(number + 1)
            else:
                report.bad_lines.append((number + 1, f"not JSON ({exc})"[:120]))
            if skipped is not None:
                skipped.append((number + 1, line))
            continue
        if number == last and not complete:
            report.missing_newline = True
        if obj.__class__ is not kind:
            report.bad_lines.append((number + 1, "not a JSON object"))
            if skipped is not None:
                skipped.append((number + 1, line))
            continue
        yield number + 1, line, obj


def looks_torn(line: bytes) -> bool:
    """Whether ``line`` is the start of a JSON object cut off mid-write.

    True when it opens an object and every bracket it opens is still open at its end
    (strings and escapes followed); garbage, or an object with something after it, is not.
    """
    if not line.startswith(b'{"'):
        return False
    depth, in_string, escaped = 0, False, False
    for byte in line:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x7B, 0x5B):  # { [
            depth += 1
        elif byte in (0x7D, 0x5D):  # } ]
            depth -= 1
            if depth == 0:
                return False  # the object closed: whatever follows makes it garbage
    return depth > 0


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _header_problem(obj: dict[str, Any] | None) -> str | None:
    if obj is None:
        return "no session header (no line parses as JSON)"
    if obj.get("type") != "session":
        return 'first line is not a session header ({"type":"session",…})'
    if not isinstance(obj.get("id"), str):
        return "session header has no string id"
    version = obj.get("version", 1)
    whole = isinstance(version, int) or (isinstance(version, float) and version.is_integer())
    if isinstance(version, bool) or not whole:
        # Guessing here would be "treat as v1": a migration that rewrites every id.
        return f"session header version must be a whole number, not {_shown(version)}"
    for key in ("timestamp", "cwd"):
        if key in obj and not isinstance(obj[key], str):
            return f"session header {key} must be a string, not {_shown(obj[key])}"
    parent = obj.get("parentSession")
    if parent is not None and not isinstance(parent, str):
        return f"session header parentSession must be a file path, not {_shown(parent)}"
    return None


def _version_problem(header: dict[str, Any], rest: list[_Parsed]) -> str | None:
    """A header that says v1 (entries without ids, chained by file order) on a file whose
    entries carry tree ids: migrating it would flatten the tree and replace every id."""
    if file_version([header]) >= 2:
        return None
    for _, _, obj in rest:
        if obj.get("type") != "session" and isinstance(obj.get("id"), str) and "parentId" in obj:
            version = header.get("version")
            said = "has no version" if version is None else f"says version {_shown(version)}"
            return (
                f"session header {said} (the first format, whose entries have no ids) but "
                f"its entries have tree ids (id, parentId): the header's version is wrong; "
                f"the file was not migrated"
            )
    return None


def _build_table(
    parsed: Iterable[_Parsed],
    report: LoadReport,
    keep_lines: bool,
    numbers: list[int] | None = None,
) -> tuple[EntryTable, dict[str, str]]:
    """Index the entries. With ``keep_lines`` an entry keeps its line, not its object;
    ``numbers`` (if given) receives each entry's line number."""
    table = EntryTable()
    labels: dict[str, str] = {}
    heads = _checked_heads(parsed, report, keep_lines, table.raws, numbers)
    _index_heads(table, heads, report.duplicate_ids, labels)
    table.finish_bulk_load()
    return table, labels


def _checked_heads(
    parsed: Iterable[_Parsed],
    report: LoadReport,
    keep_lines: bool,
    raws: list[Any],
    numbers: list[int] | None,
) -> Iterator[EntryHead]:
    """The heads of the entries worth indexing, each one's line (or object) put in
    ``raws`` as it is handed out; second headers and entries without a string type and
    id are counted in ``report`` and left out."""
    for number, line, obj in parsed:
        head = obj if obj.__class__ is EntryHead else _head_of(obj)
        kind = head.type
        if kind == "session":
            report.duplicate_headers += 1
            continue
        if kind.__class__ is not str or head.id.__class__ is not str:
            report.bad_lines.append((number, "entry without a string type and id"))
            continue
        if numbers is not None:
            numbers.append(number)
        raws.append(line if keep_lines else obj)
        yield head


def _index_heads(
    table: EntryTable,
    heads: Iterable[EntryHead | _SoundHead],
    duplicates: list[str],
    labels: dict[str, str],
) -> bool:
    """Put each head's id, parent, type and role in ``table``'s columns (its raws are the
    caller's); False at a session header, where the one-pass reading gives up."""
    # The hot loop of opening a large file (one step per entry, each head used while it
    # is fresh: a column at a time over 100k heads is slower). Appends inlined on purpose.
    ids, index = table.ids, table.index
    add_id, add_parent = ids.append, table.parents.append
    add_type, add_role = table.types.append, table.roles.append
    # One str object per distinct type/role, and a parent is its entry's own id object:
    # 100k entries would otherwise keep ~300k small strings (~17 MB) of repeated text.
    names: dict[str, str] = {}
    intern = names.setdefault
    holders = _ROLE_HOLDERS
    for head in heads:
        kind = head.type
        entry_id = head.id
        parent = head.parentId
        role = None
        if kind == "message":
            message = head.message
            if message.__class__ in holders:
                role = message.role
        elif kind == "label":
            _resolve_label(head, labels)
        elif kind == "session":
            return False  # a second header: the careful reading counts it
        if entry_id in index:
            duplicates.append(entry_id)
        if parent.__class__ is str:
            known = index.get(parent)
            if known is not None:
                parent = ids[known]
        else:
            parent = None
        index[entry_id] = len(ids)
        add_id(entry_id)
        add_parent(parent)
        add_type(intern(kind, kind))
        add_role(intern(role, role) if role.__class__ is str else None)
    return True


class _SoundRole(msgspec.Struct, gc=False):
    """:class:`_Role` of a well-formed message: a string role or none."""

    role: str | None = None


class _SoundHead(msgspec.Struct, gc=False):
    """:class:`EntryHead` of a well-formed entry line: string type and id, a string or null
    parent, a message that is an object (role a string, if any). A line that does not fit
    fails to decode, and the careful reading (:func:`_build_table`) decides about it, so
    the one pass needs no check per entry. Not tracked by the cyclic collector."""

    type: str
    id: str
    parentId: str | None = None
    message: _SoundRole | None = None
    targetId: Any = None
    label: Any = None


_decode_sound_head = msgspec.json.Decoder(_SoundHead).decode
_ROLE_HOLDERS = (_Role, _SoundRole)
"""What a head's ``message`` is when it is an object (anything else has no role)."""


def _fast_table(
    lines: list[bytes], start: int, report: LoadReport
) -> tuple[EntryTable, dict[str, str], LoadReport] | None:
    """:func:`_build_table` of a sound file's entry lines (from ``start``, 0-based): each
    line decoded as :class:`_SoundHead`, so the loop checks no types; None if any line
    needs a closer look.

    A blank line, a torn one, one msgspec refuses (not JSON for it, not an object, a lone
    surrogate escape) or that is not a :class:`_SoundHead`, or a second session header
    makes this give up, and the caller's line-by-line reading decides as it always did:
    a damaged file costs a second pass, a sound one ~70 ms less on 100k entries. The
    report is a copy, so giving up leaves ``report`` as it was.
    """
    if not _ends_with_newline(lines):
        return None  # the last line may be torn: the careful reading says
    body = lines[start:-1]
    trial = copy.deepcopy(report)
    table = EntryTable()
    labels: dict[str, str] = {}
    # Each line's size, for EntryTable.line_sizes (one C pass: the lines are at hand).
    table.line_sizes = array("I", map(len, body))
    table.line_origin = sum(map(len, lines[:start])) + start  # each line and its newline
    try:
        if not _index_heads(table, map(_decode_sound_head, body), trial.duplicate_ids, labels):
            return None
    except FAST_DECODE_ERRORS:
        return None
    table.raws += body
    table.finish_bulk_load()
    return table, labels, trial


def _resolve_label(head: EntryHead | _SoundHead, labels: dict[str, str]) -> None:
    target, label = head.targetId, head.label
    if isinstance(target, str):
        if isinstance(label, str) and label:
            labels[target] = label
        else:
            labels.pop(target, None)


def _cut_broken_links(table: EntryTable, report: LoadReport) -> None:
    ids, parents = table.ids, table.parents
    ppos = table.parent_positions()
    # Searched in C (list.index, map): a Python step per entry costs ~5 ms on 100k.
    # Position -1 is a root or a parent not in the file; roots are few.
    missing = [at for at in positions_of(ppos, -1) if parents[at] is not None]
    for position in missing:  # (its position stays -1 in ppos)
        report.missing_parents.append(ids[position])
        table.set_parent(position, None)
    # Only a link to a later entry (or itself) can close a cycle.
    if any(map(operator.ge, ppos, range(len(ppos)))):
        for cut in _cycle_cuts(table.parent_positions()):
            report.cycles.append(ids[cut])
            table.set_parent(cut, None)


def _cycle_cuts(ppos: list[int]) -> list[int]:
    """One position per parent cycle: its earliest entry in file order (made a root).

    In a sane file a parent precedes its child, so that entry's link is the one that
    points forward: cutting it keeps every other link.
    """
    cuts: list[int] = []
    state = bytearray(len(ppos))  # 0 unseen, 1 on the current chain, 2 done
    for start in range(len(ppos)):
        chain: list[int] = []
        current = start
        while current >= 0 and state[current] == 0:
            state[current] = 1
            chain.append(current)
            current = ppos[current]
        if current >= 0 and state[current] == 1:
            cuts.append(min(chain[chain.index(current) :]))
        for position in chain:
            state[position] = 2
    return cuts


def _in_file_order(
    first: _Parsed | None, rest: list[_Parsed], skipped: list[tuple[int, bytes]]
) -> list[dict[str, Any] | bytes]:
    """Objects and skipped lines by line number (a migration rewrites them all)."""
    numbered: list[tuple[int, dict[str, Any] | bytes]] = [(n, obj) for n, _, obj in rest]
    if first is not None:
        numbered.append((first[0], first[2]))
    numbered += skipped
    numbered.sort(key=lambda pair: pair[0])
    return [piece for _, piece in numbered]


def _ends_with_newline(lines: list[bytes]) -> bool:
    return len(lines) > 1 and not lines[-1]


def needs_newline(lines: list[bytes]) -> bool:
    """Whether the file these are the lines of has content after its last newline."""
    return bool(lines[-1])


def read_lines(path: str) -> list[bytes]:
    """``open(path, "rb").read().split(b"\\n")``, read in chunks: the file is never held
    whole beside its lines (a 66 MB session would otherwise need 132 MB to open).

    Raises:
        OSError: It cannot be read.
    """
    lines: list[bytes] = []
    carry = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            # BytesIO's readlines finds each newline with memchr; bytes.split looks at
            # every byte in turn (400 M instructions on a 66 MB file, against 175 M
            # for this and the copies without the newline).
            parts = io.BytesIO(chunk).readlines()
            if carry:  # the line the last chunk cut: only it is joined, not the chunk
                parts[0] = carry + parts[0]
            carry = b"" if parts[-1].endswith(b"\n") else parts.pop()
            lines += map(_WITHOUT_NEWLINE, parts)
    lines.append(carry)
    return lines


_CHUNK = 1 << 20
_WITHOUT_NEWLINE = operator.itemgetter(slice(None, -1))


def parse_session_bytes(data: bytes, *, lenient: bool = False, name: str = "") -> LoadedFile:
    """Parse a session file's bytes (:func:`parse_session_lines` of its lines)."""
    return parse_session_lines(data.split(b"\n"), lenient=lenient, name=name)


def parse_session_lines(lines: list[bytes], *, lenient: bool = False, name: str = "") -> LoadedFile:
    """Parse a session file given as its lines (the file's bytes split at each ``\\n``).

    Args:
        lines: The whole file, split.
        lenient: Do not raise on a bad header (for ``check``): report it and go on.
        name: File name for error messages.

    Raises:
        SessionError: The file has content but no valid session header (unless lenient).
    """
    report = LoadReport()
    skipped: list[tuple[int, bytes]] = []
    numbers: list[int] | None = [] if lenient else None
    with bulk_allocation():
        stream = _iter_objects(lines, report, skipped)
        first = next(stream, None)
        header = first[2] if first else None
        # A file whose only content is a torn first line never held a complete line: it
        # is a crashed creation, as good as empty (nothing to protect).
        only_torn = report.torn_tail and not report.bad_lines
        has_content = first is not None or (not only_torn and any(line.strip() for line in lines))
        problem = _header_problem(header) if has_content else None
        rest: list[_Parsed] | None = None
        if (
            problem is None
            and header is not None
            and file_version([header]) < CURRENT_SESSION_VERSION
        ):
            rest = list(stream)  # migration needs every object of the file
            problem = _version_problem(header, rest)
            stream = iter(rest)
        elif first is not None:
            # A current file: the entries are indexed from their heads alone (each line
            # is kept as bytes and parsed in full only when someone asks for it).
            stream = _iter_objects(lines, report, skipped, start=first[0], heads=True)
        if problem and not lenient:
            raise SessionError(
                f"{name or 'session file'}: {problem}. The file was left untouched; "
                "`pitui session check FILE --repair OUT` writes a repaired copy."
            )
        report.header_problem = problem
        bad_header: dict[str, Any] | None = None
        if problem is not None:
            if header is not None and header.get("type") == "session":
                bad_header = header  # kept for a repair; not an entry, not a duplicate
            else:
                stream = itertools.chain([first] if first else [], stream)
            header = None
        objects: list[dict[str, Any] | bytes] = []
        if header is not None and rest is not None:
            parsed: list[dict[str, Any]] = [header] + [obj for _, _, obj in rest]
            report.migrated_from = migrate_objects(parsed)
            table, labels = _build_table(rest, report, False, numbers)
            objects = _in_file_order(first, rest, skipped)
        else:
            fast = (
                None
                if numbers is not None or first is None
                else _fast_table(lines, first[0], report)
            )
            if fast is not None:
                table, labels, report = fast
            else:
                table, labels = _build_table(stream, report, True, numbers)
        if needs_newline(lines) and not report.torn_tail:
            report.missing_newline = True
        _cut_broken_links(table, report)
        return LoadedFile(header, objects, table, report, labels, numbers or [], bad_header)
