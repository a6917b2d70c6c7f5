"""Line breaks for text that holds long paths (plain data, no Textual).

The terminal's word wrap breaks only at spaces, so a session file's path longer than the
pane is cut mid-name. Here a word too long for the line is broken after its path
separators instead, and only mid-name when one part alone is wider than the line.
"""

from __future__ import annotations

import re

_PARTS = re.compile(r"[^/\\]*[/\\]|[^/\\]+")
"""A path's parts, each with the separator that ends it."""


def _pieces(word: str, width: int) -> list[str]:
    """``word`` in pieces of at most ``width`` columns, cut after separators."""
    pieces: list[str] = []
    current = ""
    for part in _PARTS.findall(word):
        while len(part) > width:  # one name wider than the line: no better place
            if current:
                pieces.append(current)
                current = ""
            pieces.append(part[:width])
            part = part[width:]
        if len(current) + len(part) > width:
            pieces.append(current)
            current = ""
        current += part
    if current:
        pieces.append(current)
    return pieces


def _wrap_line(line: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in line.split(" "):
        joined = f"{current} {word}" if current else word
        if len(joined) <= width:
            current = joined
            continue
        if current:
            lines.append(current)
        pieces = _pieces(word, width) if len(word) > width else [word]
        lines.extend(pieces[:-1])
        current = pieces[-1] if pieces else ""
    lines.append(current)
    return lines


def wrap_paths(text: str, width: int) -> str:
    """``text`` with line breaks so that no line is wider than ``width`` and long paths
    break at their separators; unchanged when ``width`` is unknown (0) or it fits."""
    if width <= 0 or all(len(line) <= width for line in text.split("\n")):
        return text
    return "\n".join(out for line in text.split("\n") for out in _wrap_line(line, width))
