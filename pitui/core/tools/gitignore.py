"""gitignore-style globs and a directory walk that honours nested ``.gitignore`` files.

Used by ``find`` and by the pure-Python ``grep`` fallback. Rules follow git: blank
lines and ``#`` comments are skipped, ``!`` negates, a trailing ``/`` matches only
directories, a pattern with a ``/`` anywhere but the end is anchored to the directory
of its ``.gitignore``, ``**`` spans directories, and the last matching rule wins
(deeper files after shallower ones). An ignored directory is not entered, so nothing
below it can be re-included. ``.git`` directories are always skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

IGNORE_FILE = ".gitignore"
ALWAYS_SKIPPED = frozenset({".git"})


def _translate(body: str) -> str:
    """Regex source for a glob body (no anchoring), ``/``-aware."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        if body.startswith("**/", i) and (i == 0 or body[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i) and (i == 0 or body[i - 1] == "/") and i + 2 == n:
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        elif body[i] == "[":
            end = body.find("]", i + 2 if body.startswith(("[!", "[^"), i) else i + 1)
            if end == -1:
                out.append(re.escape("["))
                i += 1
                continue
            inner = body[i + 1 : end]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out.append(f"[{inner.replace(chr(92), chr(92) * 2)}]")
            i = end + 1
        elif body[i] == "\\" and i + 1 < n:
            out.append(re.escape(body[i + 1]))
            i += 2
        else:
            out.append(re.escape(body[i]))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class GlobRule:
    """One compiled gitignore line (or ``--glob`` filter)."""

    regex: re.Pattern[str]
    negate: bool
    dir_only: bool

    def matches(self, rel_path: str, is_dir: bool) -> bool:
        """Whether this rule applies to ``rel_path`` (POSIX, relative to the rule's base)."""
        if self.dir_only and not is_dir:
            return False
        return self.regex.fullmatch(rel_path) is not None


def compile_glob(pattern: str, *, ignore_case: bool = False) -> GlobRule | None:
    """Compile one gitignore-style line; ``None`` for blanks and comments."""
    line = pattern.rstrip("\n\r")
    stripped = re.sub(r"(?<!\\) +$", "", line)
    if not stripped or stripped.startswith("#"):
        return None
    negate = stripped.startswith("!")
    if negate or stripped.startswith(("\\!", "\\#")):
        stripped = stripped[1:]
    dir_only = stripped.endswith("/")
    stripped = stripped.rstrip("/")
    if not stripped:
        return None
    anchored = "/" in stripped
    stripped = stripped.lstrip("/") if anchored else stripped
    prefix = "" if anchored else "(?:.*/)?"
    flags = re.IGNORECASE if ignore_case else 0
    return GlobRule(re.compile(prefix + _translate(stripped), flags), negate, dir_only)


@dataclass
class IgnoreLevel:
    """The rules of one directory's ignore files, applied below that directory."""

    base: str  # POSIX path of the .gitignore's directory, relative to the walk root ("" = root)
    rules: list[GlobRule] = field(default_factory=list)


_Level = IgnoreLevel


def read_ignore_rules(directory: str, names: tuple[str, ...] = (IGNORE_FILE,)) -> list[GlobRule]:
    """The rules of the ignore files ``names`` in ``directory``, in that order (blocking)."""
    rules: list[GlobRule] = []
    for name in names:
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        rules += [rule for line in lines if (rule := compile_glob(line)) is not None]
    return rules


def _read_rules(directory: str) -> list[GlobRule]:
    return read_ignore_rules(directory)


def is_ignored(levels: list[IgnoreLevel], rel_path: str, is_dir: bool) -> bool:
    """Whether the last rule matching ``rel_path`` (relative to the walk root) ignores it."""
    return _ignored(levels, rel_path, is_dir)


def _ignored(levels: list[_Level], rel_path: str, is_dir: bool) -> bool:
    ignored = False
    for level in levels:
        if level.base and not rel_path.startswith(level.base + "/"):
            continue
        local = rel_path[len(level.base) + 1 :] if level.base else rel_path
        for rule in level.rules:
            if rule.matches(local, is_dir):
                ignored = not rule.negate
    return ignored


@dataclass(frozen=True)
class WalkEntry:
    """One entry found by :func:`walk`."""

    rel_path: str  # POSIX, relative to the walk root
    abs_path: str
    is_dir: bool
    is_symlink: bool


def walk(root: str, *, respect_gitignore: bool = True) -> Iterator[WalkEntry]:
    """Yield every entry under ``root`` (depth first, sorted by name), hidden ones included.

    Blocking: run it in a thread. Symlinked directories are listed but not entered;
    unreadable directories are skipped.
    """
    levels: list[_Level] = []
    if respect_gitignore:
        levels.append(_Level("", _read_rules(root)))
    yield from _walk_dir(root, "", levels, respect_gitignore)


def _walk_dir(
    abs_dir: str, rel_dir: str, levels: list[_Level], respect: bool
) -> Iterator[WalkEntry]:
    try:
        with os.scandir(abs_dir) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name in ALWAYS_SKIPPED:
            continue
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if respect and _ignored(levels, rel, is_dir):
            continue
        yield WalkEntry(rel, entry.path, is_dir, is_link)
        if is_dir:
            nested = levels
            if respect:
                rules = _read_rules(entry.path)
                nested = [*levels, _Level(rel, rules)] if rules else levels
            yield from _walk_dir(entry.path, rel, nested, respect)
