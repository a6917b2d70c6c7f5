"""Where skills and prompt templates are looked for, in pi's order (first found wins).

Project folders come first, then the user's: pitui's own (``.pitui/…``, the pitui
home), pi's (``.pi/…``, ``~/.pi/agent/…``; the ``loadPiResources`` setting turns them
off) and, for skills, the Agent Skills folders (``.agents/skills`` in the cwd and each
parent up to the repository root, and ``~/.agents/skills``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pitui import paths

if TYPE_CHECKING:  # type names only: the first-run check reads locations alone
    from pitui.core.resources.skills import Scope
    from pitui.core.resources.walk import SkillLayout

Kind = Literal["skills", "prompts"]


class Location:
    """One folder to search (immutable).

    A plain class, not a msgspec Struct: a first start's check (pitui.ui.live.first_run)
    lists these folders before its first frame, and nothing else there needs msgspec,
    whose import costs as much as drawing the frame."""

    __slots__ = ("layout", "root", "scope")
    root: Path
    scope: Scope
    layout: SkillLayout

    def __init__(self, root: Path, scope: Scope, layout: SkillLayout = "pi") -> None:
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "scope", scope)
        object.__setattr__(self, "layout", layout)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Location is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Location):
            return NotImplemented
        return (self.root, self.scope, self.layout) == (other.root, other.scope, other.layout)

    def __hash__(self) -> int:
        return hash((self.root, self.scope, self.layout))

    def __repr__(self) -> str:
        return f"Location(root={self.root!r}, scope={self.scope!r}, layout={self.layout!r})"


def repository_root(start: Path) -> Path | None:
    """The nearest folder from ``start`` up that holds ``.git`` (blocking, a few stats)."""
    directory = Path(os.path.abspath(start))
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def ancestor_agents_dirs(cwd: Path) -> list[Path]:
    """``.agents/skills`` in ``cwd`` and each parent, stopping at the repository root
    (or the filesystem root outside a repository); the user's own one excluded."""
    directory = Path(os.path.abspath(cwd))
    top = repository_root(directory)
    found: list[Path] = []
    for candidate in (directory, *directory.parents):
        found.append(candidate / ".agents" / "skills")
        if top is not None and candidate == top:
            break
    user = paths.agents_skills_dir()
    return [d for d in found if d != user]


def skill_locations(cwd: Path, *, pi_folders: bool) -> list[Location]:
    """Every skills folder, project ones first."""
    project = [Location(paths.project_dir(cwd) / "skills", "project")]
    if pi_folders:
        project.append(Location(cwd / ".pi" / "skills", "project"))
    project += [Location(d, "project", "agents") for d in ancestor_agents_dirs(cwd)]
    user = [Location(paths.skills_dir(), "user")]
    if pi_folders:
        user.append(Location(paths.pi_agent_dir() / "skills", "user"))
    user.append(Location(paths.agents_skills_dir(), "user", "agents"))
    return project + user


def prompt_locations(cwd: Path, *, pi_folders: bool) -> list[Location]:
    """Every prompt-template folder, project ones first."""
    found = [Location(paths.project_dir(cwd) / "prompts", "project")]
    if pi_folders:
        found.append(Location(cwd / ".pi" / "prompts", "project"))
    found.append(Location(paths.prompts_dir(), "user"))
    if pi_folders:
        found.append(Location(paths.pi_agent_dir() / "prompts", "user"))
    return found
