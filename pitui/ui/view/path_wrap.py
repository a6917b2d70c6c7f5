"""Where to break a line of text that holds long paths (plain data, no Textual).

The terminal's word wrap breaks only at spaces, so a session file's path longer than the
pane is cut mid-name. Here a word too long for the line breaks after its path separators
instead, and mid-name only when one part alone is wider than the line.

This only says where lines start, for the width the renderer asks about at the time: the
widget's renderer calls it for every width it lays the text out at (a resize too), so the
breaks and the height always agree and no text is lost (pitui/ui/widgets/path_wrapped.py).
"""

from __future__ import annotations

import re

from pitui.lazy_pattern import lazy_pattern

_WORDS = re.compile(r"\S+\s*|\s+")
"""A word and the spaces after it (a line break at a space drops those spaces)."""
_PARTS = lazy_pattern(r"[^/\\]*[/\\]|[^/\\]+")
"""A path's parts, each with the separator that ends it (only a word wider than the line
is split: the first frame's notice has none, so it compiles on first use)."""


def _part_offsets(word: str, start: int, width: int) -> tuple[list[int], int]:
    """Line starts inside ``word`` (at ``start`` in the line, at the start of a line of
    its own), breaking after its separators; and the column after it."""
    offsets: list[int] = []
    position, column = start, 0
    for part in _PARTS.findall(word):
        if column and column + len(part) > width:  # the part starts the next line
            offsets.append(position)
            column = 0
        while len(part) > width:  # one name wider than the line: no better place
            position += width
            part = part[width:]
            offsets.append(position)
        position += len(part)
        column += len(part)
    return offsets, column


def line_starts(line: str, width: int) -> list[int]:
    """The offsets in ``line`` (no newline in it) where wrapped lines begin, the first
    line's 0 left out: at spaces, and inside a word wider than ``width`` after its path
    separators. Empty if ``width`` is unknown (0 or less) or the line fits."""
    if width <= 0 or len(line) <= width:
        return []
    offsets: list[int] = []
    column = 0
    for match in _WORDS.finditer(line):
        word = match.group().rstrip()
        start = match.start()
        if column and column + len(word) > width:  # the word starts the next line
            offsets.append(start)
            column = 0
        if len(word) > width:
            inside, column = _part_offsets(word, start, width)
            offsets.extend(inside)
        else:
            column += len(word)
        column += len(match.group()) - len(word)  # the spaces after it
    return [offset for offset in offsets if 0 < offset < len(line)]
