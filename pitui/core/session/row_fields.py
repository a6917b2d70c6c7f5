"""An entry line decoded in part: only the keys its row in the tree or the context report
reads.

A 100k-entry file's tree and context report read every line of a path. Parsing each
line whole builds usage records, ids, timestamps and the like, tens of objects per line
that no row looks at; msgspec decodes just the keys below (skipping the rest in C) into
a plain dict, so the readers work on it as on the whole entry. The keys are what
:func:`~pitui.core.session.tree_rows.row_text`, ``search_text``, ``tool_calls_of``, ``has_text`` and
:func:`~pitui.core.compaction.tokens.estimate_raw_entry` read, and the reasons of
:mod:`pitui.core.context_unsent`; ``tests/core/session/test_fast_decoders.py`` proves
their results equal those of the whole entry on every fixture session and fuzz mutant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

import msgspec

from pitui.core.session.table import FAST_DECODE_ERRORS, EntryTable, parse_json_line


class _RowMessage(TypedDict, total=False):
    role: Any
    content: Any
    toolCallId: Any
    toolName: Any
    stopReason: Any
    errorMessage: Any
    command: Any
    output: Any
    summary: Any
    sections: Any
    toolsAdded: Any
    toolsRemoved: Any


class _RowEntry(TypedDict, total=False):
    type: Any
    message: _RowMessage | list[Any] | str | int | float | bool | None
    content: Any
    customType: Any
    summary: Any
    tokensBefore: Any
    modelId: Any
    thinkingLevel: Any
    label: Any
    name: Any


_decode_row = msgspec.json.Decoder(_RowEntry).decode


def row_fields(table: EntryTable, position: int) -> Mapping[str, Any]:
    """The entry at ``position`` with the keys a row reads (all of them for an entry that
    was not read from a line)."""
    line = table.line(position)
    return table.raw(position) if line is None else line_row_fields(line)


def line_row_fields(line: bytes) -> Mapping[str, Any]:
    """:func:`row_fields` of an entry's line (one of a table's: a JSON object).

    Raises:
        ValueError: Not JSON (no line of a loaded table).
    """
    try:
        return _decode_row(line)
    except FAST_DECODE_ERRORS:
        # What msgspec refuses, the full parser reads (or rejects) as on open.
        parsed: Mapping[str, Any] = parse_json_line(line)
        return parsed
