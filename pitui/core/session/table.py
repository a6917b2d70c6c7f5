"""The entries of one session in file order, indexed by id, validated lazily.

A long session has 100k entries. Turning every line into Python objects on open costs
more than pi's whole budget, and keeps millions of objects for the garbage collector to
walk for the rest of the session. So a line read from a v3 file is kept as its bytes
(after being decoded once, in part: checked to be JSON while only its type, id, parent
and message role become Python objects, see ``load.EntryHead``); it is parsed in full,
and validated into a typed entry, only when someone asks. A long-lived process lets
typed entries give their lines up and reads them again from the file when asked
(:meth:`EntryTable.release_typed_lines`, ``line_source.py``).
"""

from __future__ import annotations

import itertools
import json
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import msgspec
import orjson
import pydantic_core
from pydantic import ValidationError

from pitui.ai._base import loaded_fields_shared
from pitui.core.session.entries import SessionEntry, UnknownEntry, parse_entry
from pitui.core.session.invalid import describe_invalid
from pitui.errors import SessionError

if TYPE_CHECKING:
    from pitui.core.session.line_source import LineSource

Raw: TypeAlias = dict[str, Any] | bytes
"""An entry's JSON: the object, or the exact line it was read from (no newline); an
empty line is one given up, read again from the file (:attr:`EntryTable.source`)."""


FAST_DECODE_ERRORS = (msgspec.DecodeError, RecursionError)
"""What a msgspec decoder of a line may raise (bad JSON for it, a type it does not expect,
nesting too deep): the line then goes to :func:`parse_json_line`, which decides."""


def parse_json_line(line: bytes, *, share_short: bool = False) -> Any:
    """Parse one JSONL line as JSON.parse would (pi's reader).

    Args:
        line: The line.
        share_short: Short string values (≤ 64 bytes: model, provider and tool names,
            call ids) come from one cache: equal values are one object across lines.
            For objects kept for long (typed entries in the TUI); else only keys are.

    Raises:
        ValueError: Not JSON.
    """
    try:
        # Caching only keys: long unique values (tool output) make a full cache a loss.
        return pydantic_core.from_json(line, cache_strings="all" if share_short else "keys")
    except ValueError:
        pass
    # jiter rejects lone surrogates and bad UTF-8 that JSON.parse accepts (and nesting
    # deeper than 200, which no session holds).
    try:
        return json.loads(line.decode("utf-8", "replace"))
    except RecursionError:
        raise ValueError("nested too deeply to be a session entry") from None


class JsonSlice:
    """A message's JSON as orjson writes it, kept as bytes: a part of its entry's line
    when the line holds it byte for byte (the line is kept anyway: the slice costs a few
    bytes, not a copy), else its own encoding."""

    __slots__ = ("data", "start", "stop")

    def __init__(self, data: bytes, start: int, stop: int) -> None:
        self.data, self.start, self.stop = data, start, stop

    def encoded(self) -> bytes:
        """The JSON."""
        return self.data[self.start : self.stop]  # (the whole of ``data``: no copy)

    def fragment(self) -> orjson.Fragment:
        """The JSON, for orjson to write as it is."""
        return orjson.Fragment(self.encoded())

    def value(self) -> Any:
        """The object it encodes."""
        return orjson.loads(self.encoded())


KeptJson: TypeAlias = "JsonSlice | dict[str, Any]"
"""A message's JSON as it was read, kept for printing (:meth:`EntryTable.entry`'s
``json_sink``): encoded (:class:`JsonSlice`), or the object itself when orjson cannot
write it as it is."""


def kept_json(found: dict[str, Any], line: bytes) -> KeptJson:
    """``found`` (read from ``line``) kept for printing: as its compact JSON, written
    without a second encoding, in ``line`` itself if it is there (most lines: pi writes
    the JSON orjson does, but for some numbers, ``0.000005`` for ``5e-6``); ``found``
    itself when orjson refuses it (an integer beyond 64 bits, a lone surrogate) or
    writes it otherwise (NaN and the infinities, which JSON.parse never yields but the
    fallback reader takes, as null)."""
    try:
        encoded = orjson.dumps(found)
    except TypeError:
        return found
    if b"null" in encoded and orjson.loads(encoded) != found:
        return found
    # pi writes the message last: its end is checked first (a search costs ~1 µs more).
    stop = len(line) - 1
    start = stop - len(encoded) if line.endswith(b"}") else -1
    if start < 0 or not line.startswith(encoded, start):
        start = line.find(encoded)
    if start >= 0:
        return JsonSlice(line, start, start + len(encoded))
    # A copy of its own size: orjson's bytes keep their 4 KB buffer (100 MB on 25k).
    own = memoryview(encoded).tobytes()
    return JsonSlice(own, 0, len(own))


def encoded_list(kept: list[Any]) -> bytes | None:
    """A list of :class:`JsonSlice` objects as the JSON array orjson writes of the objects they
    encode (one join, no call per item from the encoder); None if any is not one."""
    if not kept or any(item.__class__ is not JsonSlice for item in kept):
        return None
    return b"[" + b",".join([item.data[item.start : item.stop] for item in kept]) + b"]"


def plain_json(kept: Any) -> Any:
    """The object a :data:`KeptJson` (or any other value) stands for."""
    return kept.value() if kept.__class__ is JsonSlice else kept


def json_fragment(kept: Any) -> orjson.Fragment:
    """orjson's ``default`` for data holding :class:`JsonSlice` objects, each written as it is.

    Raises:
        TypeError: ``kept`` is no :class:`JsonSlice` (orjson's own error for it, then).
    """
    if kept.__class__ is JsonSlice:
        return kept.fragment()
    raise TypeError(f"Type is not JSON serializable: {type(kept).__name__}")


class EntryTable:
    """Entries in file order. ``parents`` holds effective parents (broken links cut)."""

    __slots__ = (
        "_path_memo",
        "_ppos",
        "_typed",
        "ids",
        "index",
        "invalid",
        "line_origin",
        "line_sizes",
        "parents",
        "raws",
        "roles",
        "source",
        "types",
    )

    def __init__(self) -> None:
        self.raws: list[Raw] = []
        """Each entry's line (read from a file) or object (built, migrated)."""
        self.ids: list[str] = []
        self.parents: list[str | None] = []
        self.types: list[str] = []
        self.roles: list[str | None] = []
        """The message role of ``message`` entries (None for other entries)."""
        self.index: dict[str, int] = {}
        """id → position of its last occurrence (a duplicate id shadows, as in pi)."""
        self.invalid: dict[int, str] = {}
        """position → validation error, for entries that did not fit their type's model."""
        self._typed: list[SessionEntry | None] = []
        self._ppos: list[int] | None = None
        self._path_memo: tuple[list[int], int, list[int]] | None = None
        """(parent positions, leaf, its path): the last :meth:`path_positions`."""
        self.source: LineSource | None = None
        """Where given-up lines are read again (None: every line is in ``raws``)."""
        self.line_sizes: array[int] | None = None
        """The size of each entry's line as loaded, from a fast load (None: not known),
        for readers of many lines' sizes: reading it from each line touches 100k objects
        spread over the file's 66 MB (a cache miss each, ~25 ms), which loading had at
        hand. For the positions loaded (entries added later have none)."""
        self.line_origin: int | None = None
        """With :attr:`line_sizes`: the byte offset of the first entry's line, the others
        following it one newline apart (a fast load's file): where each line is."""

    def __len__(self) -> int:
        return len(self.ids)

    def add_raw(
        self, raw: Raw, entry_id: str, parent: str | None, kind: str, role: str | None = None
    ) -> int:
        """Add an entry; returns its position."""
        position = len(self.ids)
        self.raws.append(raw)
        self.ids.append(entry_id)
        self.parents.append(parent)
        self.types.append(kind)
        self.roles.append(role)
        self._typed.append(None)
        self.index[entry_id] = position
        if self._ppos is not None:
            self._ppos.append(-1 if parent is None else self.index.get(parent, -1))
        return position

    def add_entry(self, entry: SessionEntry, raw: Raw | None = None) -> int:
        """Add a typed entry (``raw``: its JSON, if already at hand); returns its position."""
        message = getattr(entry, "message", None)
        role = getattr(message, "role", None)
        position = self.add_raw(raw or {}, entry.id, entry.parent_id, entry.type, role)
        self._typed[position] = entry
        return position

    def finish_bulk_load(self) -> None:
        """Size the per-entry caches after the lists were filled directly (fast loading)."""
        self._typed = [None] * len(self.ids)
        self._ppos = None

    def raw(self, position: int) -> dict[str, Any]:
        """The entry's JSON object (parsed afresh from its line when it was read from a file)."""
        raw = self.raws[position]
        if raw == b"":
            raw = self._given_up(position)
        if isinstance(raw, bytes):
            parsed: dict[str, Any] = parse_json_line(raw)
            return parsed
        if not raw:
            raw = self.raws[position] = self.entry(position).to_json_dict()
        return raw

    def line(self, position: int) -> bytes | None:
        """The exact line the entry was read from, if it was (without newline)."""
        raw = self.raws[position]
        if raw == b"":
            raw = self._given_up(position)
        return raw if isinstance(raw, bytes) else None

    def line_bytes(self, positions: Sequence[int]) -> int | None:
        """The lines of ``positions`` (non-empty) in bytes, from :attr:`line_sizes`; None
        when those are not known for all of them (sized from the lines then)."""
        sizes = self.line_sizes
        if sizes is None or max(positions) >= len(sizes):
            return None
        return sum(map(sizes.__getitem__, positions))

    def raws_at(self, positions: Sequence[int]) -> list[Raw]:
        """The raw data at ``positions`` (lines given up read again): for readers that
        take many at once rather than :meth:`line` / :meth:`raw` one by one."""
        found = list(map(self.raws.__getitem__, positions))
        if b"" in found:
            found = [
                self._given_up(p) if r == b"" else r for p, r in zip(positions, found, strict=True)
            ]
        return found

    def _given_up(self, position: int) -> Raw:
        """A given-up line, read again; if the file no longer has it as it was, the
        typed entry's JSON (kept from then on)."""
        source = self.source
        line = source.read(position, self.ids[position]) if source is not None else None
        if line is not None:
            return line
        typed = self._typed[position]
        if typed is None:  # given up untyped (give_up_lines): the file is all it has
            raise SessionError(
                f"the session file changed while it was read: entry {self.ids[position]} "
                "is no longer where it was; run the command again"
            )
        raw = self.raws[position] = typed.to_json_dict()
        return raw

    def give_up_lines(self, positions: Sequence[int], path: Path) -> int:
        """Give up the lines at ``positions``, typed or not, for a reader that will read
        at most a few of them again (from ``path``, which the table was loaded from):
        only where loading placed every line (:attr:`line_origin`), and while no typed
        entry gave its line up otherwise. Returns how many were given up."""
        sizes, origin = self.line_sizes, self.line_origin
        if sizes is None or origin is None or not positions or max(positions) >= len(sizes):
            return 0
        if self.source is None:
            from pitui.core.session.line_source import LineSource

            self.source = LineSource.from_sizes(path, origin, sizes)
        if self.source is None or not self.source.sized:
            return 0
        # In C: a Python step per line is ~5 ms on 100k of them.
        list(map(self.raws.__setitem__, positions, itertools.repeat(b"", len(positions))))
        return len(positions)

    def release_typed_lines(self, path: Path) -> int:
        """Give up the lines of typed entries read from ``path`` (their data is in the
        entry): they are read again from the file when asked. Blocking (it reads the
        file to find the lines): run it in a thread. Returns how many were given up."""
        if self.source is None:
            from pitui.core.session.line_source import LineSource  # lazy: TUI only

            self.source = LineSource.locate(path, self.raws)
        source = self.source
        if source is None:
            return 0
        raws, typed, released = self.raws, self._typed, 0
        for position in range(min(len(raws), len(typed))):
            raw = raws[position]
            typed_line = raw.__class__ is bytes and raw and typed[position] is not None
            if typed_line and source.located(position):
                raws[position] = b""
                released += 1
        return released

    def close_source(self) -> None:
        """Close the file given-up lines are read from (they come from their entries then)."""
        if self.source is not None:
            self.source.close()

    def entry(self, position: int, json_sink: dict[int, KeptJson] | None = None) -> SessionEntry:
        """The typed entry at ``position``; one that fails validation loads as UnknownEntry.

        Args:
            position: The entry's position.
            json_sink: If given, a message entry read from a line gets its message JSON
                stored there under ``id(message)``, as :func:`kept_json` (so a caller can
                print it without re-serialising the model: a loaded message dumps to
                exactly the JSON it came from).
                An entry built or migrated in memory has no line: it is dumped.
        """
        cached = self._typed[position]
        if cached is not None:
            if json_sink is not None:
                self._sink_json(position, cached, json_sink)
            return cached
        raw = self._raw_to_type(position)
        try:
            typed = parse_entry(raw)
        except ValidationError as exc:
            self.invalid[position] = describe_invalid(raw, exc)
            typed = UnknownEntry.load(_with_base_fields(raw))
        self._share_ids(position, typed)
        self._typed[position] = typed
        message = getattr(typed, "message", None)
        line = self.raws[position]
        if json_sink is not None and message is not None and line.__class__ is bytes:
            found = raw.get("message")
            if isinstance(found, dict):
                json_sink[id(message)] = kept_json(found, line)
        return typed

    def _raw_to_type(self, position: int) -> dict[str, Any]:
        """:meth:`raw`, for an entry about to be typed: in a long-lived process its short
        strings come from the parser's cache (a 10,000-message session repeats its
        model, provider and tool names and call ids ~20,000 times)."""
        raw = self.raws[position]
        if raw.__class__ is bytes and raw and loaded_fields_shared():
            parsed: dict[str, Any] = parse_json_line(raw, share_short=True)
            return parsed
        return self.raw(position)

    def _share_ids(self, position: int, typed: SessionEntry) -> None:
        """The typed entry holds the table's id objects, not equal copies of its own."""
        fields = typed.__dict__
        entry_id, parent = self.ids[position], self.parents[position]
        if fields.get("id") == entry_id:
            fields["id"] = entry_id
        if parent is not None and fields.get("parent_id") == parent:
            fields["parent_id"] = parent

    def _sink_json(
        self, position: int, typed: SessionEntry, json_sink: dict[int, KeptJson]
    ) -> None:
        # Validated by an earlier call: the line is parsed again (no validation), so a
        # caller printing the message still prints the JSON it was read from.
        message = getattr(typed, "message", None)
        line = self.line(position)
        if message is None or line is None:
            return
        found = parse_json_line(line).get("message")
        if isinstance(found, dict):
            json_sink[id(message)] = kept_json(found, line)

    def is_typed(self, position: int) -> bool:
        """Whether the entry at ``position`` has been validated already."""
        return self._typed[position] is not None

    def get(self, entry_id: str) -> SessionEntry | None:
        """The entry with this id, if any."""
        position = self.index.get(entry_id)
        return None if position is None else self.entry(position)

    def all(self) -> list[SessionEntry]:
        """Every entry, typed, in file order."""
        return [self.entry(i) for i in range(len(self.ids))]

    def parent_positions(self) -> list[int]:
        """Position of each entry's effective parent (-1 for a root)."""
        if self._ppos is None:
            # index.get(None, -1) is -1 too: one C loop, no Python step per entry.
            parents = self.parents
            index = cast("dict[str | None, int]", self.index)
            self._ppos = list(map(index.get, parents, itertools.repeat(-1, len(parents))))
        return self._ppos

    def set_parent(self, position: int, parent: str | None) -> None:
        """Replace an entry's effective parent (used to cut broken links)."""
        self.parents[position] = parent
        self._ppos = None

    def parent_position(self, position: int) -> int | None:
        """Position of the effective parent, or None for a root."""
        parent = self.parent_positions()[position]
        return None if parent < 0 else parent

    def path_positions(self, leaf: int) -> list[int]:
        """Positions from the root to ``leaf`` (inclusive), root first; linear time.

        Stops at a missing parent. Loading cuts cycles; for tables built otherwise, a
        cycle ends the path where it would repeat.
        """
        ppos = self.parent_positions()
        memo = self._path_memo
        # A switch asks for the same path several times (context, tree, marks, stats).
        # Appends leave every existing entry's path as it was; a parent replaced makes
        # new parent positions (so the memo no longer matches).
        if memo is not None and memo[0] is ppos and memo[1] == leaf:
            return list(memo[2])
        path: list[int] = []
        append = path.append
        current = leaf
        # At most one step per entry and one more: more than that is a cycle. (A bounded
        # for loop: no length check per step of a 100k-entry path.)
        for _ in range(len(ppos) + 1):
            if current < 0:
                break
            append(current)
            current = ppos[current]
        else:  # more steps than entries: a cycle; keep the first visit of each entry
            path = list(dict.fromkeys(path))
        path.reverse()
        self._path_memo = (ppos, leaf, path)
        return list(path)

    def assistant_model(self, position: int) -> tuple[str, str] | None:
        """(provider, model) of an assistant message entry."""
        if self.roles[position] != "assistant":
            return None
        typed = self._typed[position]
        message = getattr(typed, "message", None) if typed is not None else None
        if message is not None:
            return (str(getattr(message, "provider", "")), str(getattr(message, "model", "")))
        data = self.raw(position).get("message")
        if not isinstance(data, dict):
            return None
        return (str(data.get("provider", "")), str(data.get("model", "")))


def _with_base_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with the fields every entry has made well-typed, so that an entry that fits
    no model still loads (as an :class:`UnknownEntry`). Loading let in only entries with a
    string ``type`` and ``id``; a wrong-typed ``parentId`` was already read as no parent."""
    parent, stamp = raw.get("parentId"), raw.get("timestamp")
    return {
        **raw,
        "parentId": parent if isinstance(parent, str) else None,
        "timestamp": stamp if isinstance(stamp, str) else "",
    }


def positions_of(values: list[Any], wanted: Any) -> Iterator[int]:
    """The indexes of ``wanted`` in ``values``, in order (each found by ``list.index``, a C
    scan: the table's columns are long)."""
    at = -1
    while True:
        try:
            at = values.index(wanted, at + 1)
        except ValueError:
            return
        yield at
