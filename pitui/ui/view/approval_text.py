"""What the approval dialog shows of a call, as text: nothing hidden, nothing too long.

The dialog is the user's one look at what will run, so the call must not be able to
hide in it: a title ``Allow $ echo safe`` over a command that goes on for 150 newlines
and a ``touch`` would be a lie. Here every control character, newline and invisible
character is spelled out (:func:`pitui.core.sanitize.visible`: ``⏎``, ``\\x1b`` …), the
title is one bounded line (a run of newlines is counted, ``⏎×150``), the command body
is cut into lines for a virtual (only what is on screen is drawn) scrolling view, and
the size of a command is stated. All linear: a 1 MB command must open in well under a
second.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, overload

from pitui.core.sanitize import visible
from pitui.core.tool_titles import tool_title_text

TITLE_CHARS = 100
"""Characters of the call the title shows; the body shows all of it."""
_TITLE_SOURCE = 4096
"""How much of the call the title is made from (the rest only counts)."""
_NEWLINE_RUN = re.compile("⏎{4,}")


def call_text(tool_name: str, args: Mapping[str, Any]) -> str:
    """The call as one string: ``$ <command>`` for bash, else its tool title."""
    command = args.get("command")
    if tool_name == "bash" and isinstance(command, str):
        return f"$ {command}"
    return tool_title_text(tool_name, args)


def title_line(tool_name: str, args: Mapping[str, Any]) -> str:
    """``$ echo safe⏎×150touch x…`` : the call in one visible, bounded line."""
    text = call_text(tool_name, args)
    shown = _NEWLINE_RUN.sub(lambda m: f"⏎×{len(m.group())}", visible(text[:_TITLE_SOURCE]))
    if len(shown) > TITLE_CHARS or len(text) > _TITLE_SOURCE:
        return shown[:TITLE_CHARS] + "…"
    return shown


def size_note(text: str) -> str:
    """``1,048,576 characters on 152 lines``: how long a call is, said plainly."""
    lines = text.count("\n") + 1
    chars = f"{len(text):,} character{'s' if len(text) != 1 else ''}"
    return f"{chars} on {lines:,} lines" if lines > 1 else chars


class BodyRows(Sequence[str]):
    """The display rows of ``text``, at most ``width`` cells each, every character visible.

    A newline of the text ends its row with ``⏎`` and starts a new one (so an empty line
    is a ``⏎`` too, never nothing); a long line is cut, not wrapped at words, so each
    character is shown exactly once. Made when asked for: a line of printable ASCII (all
    of a typical huge command) is only counted here and sliced when its row is drawn,
    so a 1 MB command costs one scan, not a million-character list of rows.
    """

    def __init__(self, text: str, width: int) -> None:
        self.width = max(width, 8)
        self._source = text.split("\n")
        self._starts: list[int] = []
        self._cut: dict[int, list[str]] = {}  # the rows of lines that need escaping
        last, total = len(self._source) - 1, 0
        for number, line in enumerate(self._source):
            self._starts.append(total)
            mark = "⏎" if number < last else ""
            if line.isascii() and line.isprintable():
                total += -(-(len(line) + len(mark)) // self.width)
            else:
                rows = _cut_cells(visible(line) + mark, self.width) if line or mark else []
                self._cut[number] = rows
                total += len(rows)
        self._count = total

    def __len__(self) -> int:
        return max(self._count, 1)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if self._count == 0:
            return " "
        number = bisect.bisect_right(self._starts, index) - 1  # only the last line has no rows
        offset = index - self._starts[number]
        if number in self._cut:
            return self._cut[number][offset] or " "
        line, start = self._source[number], offset * self.width
        end = start + self.width
        if end <= len(line):
            return line[start:end]
        mark = "⏎" if number < len(self._source) - 1 else ""
        return line[start:] + mark or " "


def body_lines(text: str, width: int) -> list[str]:
    """:class:`BodyRows` of ``text`` as a list (for tests and small calls)."""
    return list(BodyRows(text, width))


def _cut_cells(text: str, width: int) -> list[str]:
    """Cut ``text`` (with wide characters) into pieces of at most ``width`` cells."""
    pieces: list[str] = []
    start = cells = 0
    for index, char in enumerate(text):
        size = 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        if cells + size > width:
            pieces.append(text[start:index])
            start, cells = index, 0
        cells += size
    pieces.append(text[start:])
    return pieces
