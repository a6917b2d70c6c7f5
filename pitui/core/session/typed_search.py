"""An entry's tree search text from the typed entry in memory, when it has one.

Once the TUI has shown a session, the typed entries (the current path, branches visited)
give their lines up (:meth:`EntryTable.release_typed_lines`): reading their search text
from the line meant reading each line back from the file, one seek and read per entry
(the first search keystroke of a 10,000-entry session read the whole path again). The
typed entry holds the same fields, so the text comes from it; the kinds whose typed form
is not the line's plain fields (extension messages: ``bashExecution`` and the like, an
entry that failed validation) still read the line. tests/core/session/test_typed_search.py
checks both give the same text for every kind.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitui.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from pitui.core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from pitui.core.session.row_fields import row_fields
from pitui.core.session.table import EntryTable
from pitui.core.session.tree_rows import MAX_TEXT, search_text

_PLAIN_MESSAGES = (UserMessage, AssistantMessage, ToolResultMessage)


def search_text_at(table: EntryTable, position: int, label: str | None) -> str:
    """What typing in the tree searches for the entry at ``position`` (lower-cased)."""
    if table.raws[position] == b"" and table.is_typed(position):  # its line given up
        text = typed_search_text(table.entry(position), label)
        if text is not None:
            return text
    return search_text(row_fields(table, position), label)


def typed_search_text(entry: SessionEntry, label: str | None) -> str | None:
    """:func:`~pitui.core.session.tree_rows.search_text` of the entry's line, from the
    typed entry; None for a kind read from the line only."""
    parts = [label] if label else []
    if isinstance(entry, MessageEntry):
        message = entry.message
        if not isinstance(message, _PLAIN_MESSAGES):
            return None
        parts += [message.role, _text(message.content)]
    elif isinstance(entry, CustomMessageEntry):
        parts += [entry.custom_type, _text(entry.content, 1_000_000)]
    elif isinstance(entry, CompactionEntry):
        parts.append("compaction")
    elif isinstance(entry, BranchSummaryEntry):
        parts += ["branch summary", entry.summary]
    elif isinstance(entry, ModelChangeEntry):
        parts += ["model", entry.model_id]
    elif isinstance(entry, ThinkingLevelChangeEntry):
        parts += ["thinking", entry.thinking_level]
    elif isinstance(entry, CustomEntry):
        parts += ["custom", entry.custom_type]
    elif isinstance(entry, LabelEntry):
        parts += ["label", entry.label or ""]
    else:
        return None
    return " ".join(parts).lower()


def _text(content: str | Sequence[object], limit: int = MAX_TEXT) -> str:
    """:func:`~pitui.core.session.tree_rows.content_text` of typed content blocks."""
    if isinstance(content, str):
        return content[:limit]
    result = ""
    for block in content:
        if getattr(block, "type", None) == "text":
            result += str(getattr(block, "text", ""))
            if len(result) >= limit:
                return result[:limit]
    return result
