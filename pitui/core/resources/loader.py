"""Load every skill and prompt template for a session, honouring project trust.

Project-level files are instructions from a repository: until the project is trusted
they are listed (so the user can be told what was skipped) but never read. Name
collisions keep the first one found (project before user, see :mod:`.locations`) and
warn; a template named like a built-in command is dropped with a warning (the built-in
wins). The file system work runs in a thread.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

import msgspec

from pitui.core.resources.diagnostics import ResourceDiagnostic
from pitui.core.resources.locations import Location, prompt_locations, skill_locations
from pitui.core.resources.skills import Scope, Skill, read_skill
from pitui.core.resources.templates import PromptTemplate, read_template
from pitui.core.resources.walk import prompt_files, skill_files


class LoadedResources(msgspec.Struct):
    """What a session has: skills, templates, and what went wrong or was left out."""

    skills: list[Skill] = msgspec.field(default_factory=list)
    templates: list[PromptTemplate] = msgspec.field(default_factory=list)
    diagnostics: list[ResourceDiagnostic] = msgspec.field(default_factory=list)
    skipped: list[Path] = msgspec.field(default_factory=list)
    """Project files not loaded because the project is not trusted."""
    project_trust: bool | None = None
    """The trust decision in force: True allowed, False refused, None never asked."""
    context_files: list[Path] = msgspec.field(default_factory=list)
    """The AGENTS.md / CLAUDE.md files the system prompt holds (for the start-up listing)."""

    def warnings(self) -> list[str]:
        """One line per diagnostic."""
        return [d.text() for d in self.diagnostics]

    def skipped_notice(self, cwd: Path, how_to_allow: str) -> str | None:
        """What was left out for want of project trust, and how to allow it; None: nothing."""
        if not self.skipped:
            return None
        names = [_shown(path, cwd) for path in self.skipped[:SKIPPED_LISTED]]
        more = len(self.skipped) - len(names)
        listed = ", ".join(names) + (f" and {more} more" if more > 0 else "")
        return (
            f"Project skills and prompt templates not loaded (this project is not trusted): "
            f"{listed}. {how_to_allow}"
        )


SKIPPED_LISTED = 5


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _found(locations: Iterable[Location], kind: str) -> list[tuple[Path, Location]]:
    files: list[tuple[Path, Location]] = []
    for location in locations:
        if kind == "skills":
            listed = skill_files(location.root, location.layout)
        else:
            listed = prompt_files(location.root) if location.root.is_dir() else []
        files += [(path, location) for path in listed]
    return files


def _unique_files(
    files: list[tuple[Path, Location]], trusted: bool, result: LoadedResources
) -> list[tuple[Path, Location]]:
    """Files to read: each real file once; untrusted project files only noted."""
    seen: set[str] = set()
    kept: list[tuple[Path, Location]] = []
    for path, location in files:
        if location.scope == "project" and not trusted:
            result.skipped.append(path)
            continue
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            kept.append((path, location))
    return kept


def _collision(kind: str, name: str, winner: Path, loser: Path) -> ResourceDiagnostic:
    message = f'{kind} name "{name}" collision: {winner} is used, this one is not'
    return ResourceDiagnostic("collision", message, loser)


class _Named(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def file_path(self) -> Path: ...


N = TypeVar("N", bound=_Named)


def _first_of_each_name(
    files: list[tuple[Path, Location]],
    read: Callable[[Path, Scope], tuple[N | None, list[ResourceDiagnostic]]],
    kind: str,
    result: LoadedResources,
    reserved: Collection[str] = frozenset(),
) -> list[N]:
    """Read ``files`` in order, keeping the first of each name (later ones, and names a
    built-in command has, are dropped with a diagnostic)."""
    by_name: dict[str, N] = {}
    for path, location in files:
        item, diagnostics = read(path, location.scope)
        result.diagnostics += diagnostics
        if item is None:
            continue
        if item.name in reserved:
            message = f'{kind} "/{item.name}" is not used: a built-in command has that name'
            result.diagnostics.append(ResourceDiagnostic("collision", message, path))
        elif item.name in by_name:
            winner = by_name[item.name].file_path
            result.diagnostics.append(_collision(kind, item.name, winner, path))
        else:
            by_name[item.name] = item
    return list(by_name.values())


def _load_skills(cwd: Path, pi_folders: bool, trusted: bool, result: LoadedResources) -> None:
    found = _found(skill_locations(cwd, pi_folders=pi_folders), "skills")
    files = _unique_files(found, trusted, result)
    result.skills += _first_of_each_name(files, read_skill, "skill", result)


def _load_templates(
    cwd: Path, pi_folders: bool, trusted: bool, reserved: Collection[str], result: LoadedResources
) -> None:
    found = _found(prompt_locations(cwd, pi_folders=pi_folders), "prompts")
    files = _unique_files(found, trusted, result)
    result.templates += _first_of_each_name(
        files, read_template, "prompt template", result, reserved
    )


def load_resources_now(
    cwd: Path, *, trusted: bool, pi_folders: bool = True, reserved_names: Collection[str] = ()
) -> LoadedResources:
    """Everything, read now (blocking; :func:`load_resources` runs it in a thread)."""
    result = LoadedResources()
    _load_skills(cwd, pi_folders, trusted, result)
    _load_templates(cwd, pi_folders, trusted, frozenset(reserved_names), result)
    return result


async def load_resources(
    cwd: Path, *, trusted: bool, pi_folders: bool = True, reserved_names: Collection[str] = ()
) -> LoadedResources:
    """Skills and templates for ``cwd``; project ones only when ``trusted``."""
    return await asyncio.to_thread(
        load_resources_now,
        cwd,
        trusted=trusted,
        pi_folders=pi_folders,
        reserved_names=reserved_names,
    )
