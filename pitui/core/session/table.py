"""The entries of one session in file order, indexed by id, validated lazily.

A long session has 100k entries; validating every one into pydantic models on open costs
more than the whole budget of opening it. The table keeps each entry's raw JSON object
(exactly as read) plus the few facts the tree needs (id, effective parent, type), and
builds the typed entry only when someone asks for it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from pitui.core.session.entries import SessionEntry, UnknownEntry, parse_entry


class EntryTable:
    """Entries in file order. ``parents`` holds effective parents (broken links cut)."""

    __slots__ = ("_typed", "ids", "index", "invalid", "parents", "raws", "types")

    def __init__(self) -> None:
        self.raws: list[dict[str, Any]] = []
        self.ids: list[str] = []
        self.parents: list[str | None] = []
        self.types: list[str] = []
        self._typed: list[SessionEntry | None] = []
        self.index: dict[str, int] = {}
        """id → position of its last occurrence (a duplicate id shadows, as in pi)."""
        self.invalid: dict[int, str] = {}
        """position → validation error, for entries that did not fit their type's model."""

    def __len__(self) -> int:
        return len(self.ids)

    def add_raw(self, raw: dict[str, Any], entry_id: str, parent: str | None, kind: str) -> int:
        """Add an entry read from a file; returns its position."""
        position = len(self.ids)
        self.raws.append(raw)
        self.ids.append(entry_id)
        self.parents.append(parent)
        self.types.append(kind)
        self._typed.append(None)
        self.index[entry_id] = position
        return position

    def add_entry(self, entry: SessionEntry, raw: dict[str, Any] | None = None) -> int:
        """Add a typed entry (``raw``: its JSON, if already at hand); returns its position."""
        position = self.add_raw(raw or {}, entry.id, entry.parent_id, entry.type)
        self._typed[position] = entry
        return position

    def raw(self, position: int) -> dict[str, Any]:
        """The entry's JSON object: as read from the file, or as pi writes a built entry."""
        raw = self.raws[position]
        if not raw:
            raw = self.raws[position] = self.entry(position).to_json_dict()
        return raw

    def entry(self, position: int) -> SessionEntry:
        """The typed entry at ``position``; one that fails validation loads as UnknownEntry."""
        cached = self._typed[position]
        if cached is not None:
            return cached
        raw = self.raws[position]
        try:
            typed = parse_entry(raw)
        except ValidationError as exc:
            self.invalid[position] = str(exc).splitlines()[0]
            typed = UnknownEntry.load(raw)
        self._typed[position] = typed
        return typed

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

    def parent_position(self, position: int) -> int | None:
        """Position of the effective parent, or None for a root."""
        parent = self.parents[position]
        return None if parent is None else self.index.get(parent)

    def path_positions(self, leaf: int) -> list[int]:
        """Positions from the root to ``leaf`` (inclusive), root first.

        Linear in the path length. Stops at a missing parent; a cycle cannot occur because
        loading cuts cycles, but the walk still refuses to revisit a position.
        """
        path: list[int] = []
        seen: set[int] = set()
        current: int | None = leaf
        while current is not None and current not in seen:
            seen.add(current)
            path.append(current)
            current = self.parent_position(current)
        path.reverse()
        return path

    def assistant_model(self, position: int) -> tuple[str, str] | None:
        """(provider, model) of an assistant message entry, read without full validation."""
        if self.types[position] != "message":
            return None
        typed = self._typed[position]
        if typed is not None:
            message = getattr(typed, "message", None)
            if getattr(message, "role", None) != "assistant":
                return None
            return (str(getattr(message, "provider", "")), str(getattr(message, "model", "")))
        message_raw = self.raws[position].get("message")
        if not isinstance(message_raw, dict) or message_raw.get("role") != "assistant":
            return None
        return (str(message_raw.get("provider", "")), str(message_raw.get("model", "")))
