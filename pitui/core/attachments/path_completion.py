"""Tab completion of a path anywhere in typed text, as pi's editor does it.

The word before the cursor (after an ``@`` when it starts with one, or inside
``@"…"``) is completed against the file system, relative to the project: a unique
match is completed whole (a folder with ``/``), several matches to their common
prefix, and the candidates are returned for a menu. ``~`` means the home folder.
Listing a folder is blocking: :func:`complete_path` runs it in a thread.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path

MAX_CANDIDATES = 200


@dataclass(frozen=True)
class PathCompletion:
    """What Tab does: replace ``start:end`` of the text with ``replacement``."""

    start: int
    end: int
    replacement: str
    candidates: list[str] = field(default_factory=list)
    """Every matching entry (folders with ``/``), for a menu when there are several."""
    word_start: int = 0
    folder: str = ""
    """The typed folder part (``src/``) the candidates are in."""

    def candidate_word(self, candidate: str) -> str:
        """The whole word to put at ``word_start`` for one candidate."""
        return self.folder + candidate

    def apply(self, text: str) -> tuple[str, int]:
        """``(new text, new cursor)``."""
        new = text[: self.start] + self.replacement + text[self.end :]
        return new, self.start + len(self.replacement)


def word_before(text: str, cursor: int) -> tuple[int, str]:
    """``(start, word)``: the path-like word that ends at ``cursor`` (``@`` dropped)."""
    head = text[:cursor]
    quoted = head.rfind('@"')
    if quoted >= 0 and '"' not in head[quoted + 2 :]:
        return quoted + 2, head[quoted + 2 :]
    start = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t")) + 1
    if head.startswith("@", start):
        start += 1
    return start, head[start:]


def _entries(folder: Path) -> list[tuple[str, bool]]:
    try:
        with os.scandir(folder) as it:
            found = [(e.name, e.is_dir()) for e in it]
    except OSError:
        return []
    return sorted(found)[: MAX_CANDIDATES * 10]


def _common_prefix(names: list[str]) -> str:
    """The characters every name starts with (names, not paths: ``app`` of ``app.py``)."""
    first, last = min(names), max(names)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def complete_now(text: str, cursor: int, cwd: Path) -> PathCompletion | None:
    """The completion at ``cursor`` (blocking); None when nothing matches."""
    start, word = word_before(text, cursor)
    folder_part, _, prefix = word.rpartition("/")
    folder_text = folder_part + "/" if folder_part or word.startswith("/") else ""
    folder = Path(os.path.expanduser(folder_text)) if folder_text else Path(".")
    if not folder.is_absolute():
        folder = cwd / folder
    hidden_ok = prefix.startswith(".")
    matches = [
        name + ("/" if is_dir else "")
        for name, is_dir in _entries(folder)
        if name.startswith(prefix) and (hidden_ok or not name.startswith("."))
    ][:MAX_CANDIDATES]
    if not matches:
        return None
    common = _common_prefix(matches)
    if len(common) <= len(prefix) and len(matches) > 1:
        return PathCompletion(cursor, cursor, "", matches, start, folder_text)
    return PathCompletion(start, cursor, folder_text + common, matches, start, folder_text)


async def complete_path(text: str, cursor: int, cwd: Path) -> PathCompletion | None:
    """:func:`complete_now` off the event loop."""
    return await asyncio.to_thread(complete_now, text, cursor, cwd)
