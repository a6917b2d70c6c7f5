"""Search highlights drawn into item widgets: every match, and the current one stronger.

A widget is told the query's pattern and which of its own matches is current (or none);
it re-draws its content with the matches styled. The pattern is the query, literal and
case-insensitive, matched against the text as drawn.
"""

from __future__ import annotations

import re

from textual.content import Content

from pitui.records import Record

MATCH_STYLE = "reverse"
CURRENT_STYLE = "bold reverse $pi-warning"


class SearchMarks(Record):
    """What a widget highlights: the query's pattern and its current match, if it has it."""

    pattern: re.Pattern[str]
    current: int | None = None
    """Index of the current match among this widget's matches (None: not in it)."""


def search_pattern(query: str) -> re.Pattern[str]:
    """The query as a literal, case-insensitive pattern."""
    return re.compile(re.escape(query), re.IGNORECASE)


def highlight(content: Content, marks: SearchMarks | None, skip: int = 0) -> tuple[Content, int]:
    """``content`` with the matches of ``marks`` styled; returns it and its match count.

    ``skip`` is how many matches earlier parts of the same widget hold (an assistant reply
    is drawn in several parts), so the current match is counted across the parts.
    """
    if marks is None:
        return content, 0
    spans = [m.span() for m in marks.pattern.finditer(content.plain) if m.end() > m.start()]
    for number, (start, end) in enumerate(spans, skip):
        style = CURRENT_STYLE if number == marks.current else MATCH_STYLE
        content = content.stylize(style, start, end)
    return content, len(spans)
