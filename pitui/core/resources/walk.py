"""Which files in a skills or prompts folder are candidates, as pi collects them.

Ignore files (``.gitignore``, ``.ignore``, ``.fdignore``) are honoured at every level;
names starting with ``.`` and ``node_modules`` are skipped; symbolic links are followed
(each real directory entered once, so a link loop ends). Blocking: run in a thread.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pitui.core.tools.gitignore import IgnoreLevel

IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")
SKILL_FILE = "SKILL.md"
SkillLayout = Literal["pi", "agents"]
"""``pi``: Markdown files directly in the root are skills too; ``agents`` (the Agent
Skills folders): only Markdown files below the root are."""


def _entries(directory: str) -> list[tuple[str, str, bool, bool]]:
    """``(name, path, is_dir, is_file)`` of a directory, sorted by name, links followed."""
    try:
        with os.scandir(directory) as it:
            found = sorted(it, key=lambda e: e.name)
    except OSError:
        return []
    out: list[tuple[str, str, bool, bool]] = []
    for entry in found:
        try:
            out.append((entry.name, entry.path, entry.is_dir(), entry.is_file()))
        except OSError:
            continue
    return out


def _levels_with(levels: list[IgnoreLevel], directory: str, rel: str) -> list[IgnoreLevel]:
    # Imported here: only a session that has a skills or prompts folder needs the
    # gitignore rules (print mode loads no unused tool module).
    from pitui.core.tools.gitignore import IgnoreLevel, read_ignore_rules

    rules = read_ignore_rules(directory, IGNORE_FILES)
    return [*levels, IgnoreLevel(rel, rules)] if rules else levels


def is_ignored(levels: list[IgnoreLevel], rel_path: str, is_dir: bool) -> bool:
    """Whether the ignore rules of ``levels`` ignore ``rel_path``."""
    if not levels:
        return False
    from pitui.core.tools.gitignore import is_ignored as ignored

    return ignored(levels, rel_path, is_dir)


def skill_files(root: Path, layout: SkillLayout) -> list[Path]:
    """Every candidate skill file under ``root``: a folder's ``SKILL.md`` ends the search
    in that folder; other Markdown files count where ``layout`` says."""
    if not root.is_dir():
        return []
    return list(_skill_files(str(root), "", [], layout, set()))


def _skill_files(
    directory: str, rel: str, levels: list[IgnoreLevel], layout: SkillLayout, seen: set[str]
) -> Iterator[Path]:
    real = os.path.realpath(directory)
    if real in seen:
        return
    seen.add(real)
    levels = _levels_with(levels, directory, rel)
    entries = _entries(directory)
    for name, path, _is_dir, is_file in entries:
        child = f"{rel}/{name}" if rel else name
        if name == SKILL_FILE and is_file and not is_ignored(levels, child, False):
            yield Path(path)
            return
    markdown_here = (layout == "pi") == (rel == "")
    for name, path, is_dir, is_file in entries:
        if name.startswith(".") or name == "node_modules":
            continue
        child = f"{rel}/{name}" if rel else name
        if is_ignored(levels, child, is_dir):
            continue
        if is_dir:
            yield from _skill_files(path, child, levels, layout, seen)
        elif is_file and name.endswith(".md") and markdown_here:
            yield Path(path)


def prompt_files(root: Path) -> list[Path]:
    """The Markdown files directly in ``root`` (prompt folders are not searched deeper)."""
    if not root.is_dir():
        return []
    levels = _levels_with([], str(root), "")
    return [
        Path(path)
        for name, path, _is_dir, is_file in _entries(str(root))
        if is_file
        and name.endswith(".md")
        and not name.startswith(".")
        and not is_ignored(levels, name, False)
    ]
