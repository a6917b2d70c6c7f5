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

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

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


def body_lines(text: str, width: int) -> list[str]:
    """``text`` as display lines at most ``width`` cells wide, every character visible.

    A newline of the text ends its line with ``⏎`` and starts a new one (so an empty
    line is a ``⏎`` too, never nothing); a long line is cut, not wrapped at words, so
    each character is shown exactly once.
    """
    width = max(width, 8)
    lines: list[str] = []
    source = text.split("\n")
    for number, line in enumerate(source):
        shown = visible(line) + ("⏎" if number < len(source) - 1 else "")
        if shown.isascii():
            lines += [shown[i : i + width] for i in range(0, len(shown), width)]
        else:
            lines += _cut_cells(shown, width)
    return [line or " " for line in lines] or [" "]


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
