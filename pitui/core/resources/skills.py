"""Skills (the Agent Skills specification, as pi 1.6 implements it): reading one file.

A skill is a folder with a ``SKILL.md`` whose frontmatter names it and says when to use
it; the model sees only the name, the description and the path, and reads the body
itself when a task matches (progressive disclosure). Rules, as pi's:

- ``description`` is required; without one the skill is not loaded (a warning for a
  ``SKILL.md``; a plain Markdown file without one is simply not a skill);
- ``name`` defaults to the folder's name; one that breaks the naming rules (lowercase
  a-z, 0-9, hyphens, none leading, trailing or doubled, 64 characters at most) is
  reported but still loaded, as pi does;
- malformed frontmatter: a warning, not loaded;
- ``disable-model-invocation: true`` keeps it out of the system prompt (``/skill:name``
  still works).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import msgspec

from pitui.core.resources.diagnostics import ResourceDiagnostic
from pitui.core.resources.frontmatter import FrontmatterError, parse_frontmatter
from pitui.core.resources.walk import SKILL_FILE

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
Scope = Literal["user", "project"]


class Skill(msgspec.Struct, frozen=True):
    """One loaded skill (its body is read again when invoked, so edits count)."""

    name: str
    description: str
    file_path: Path
    base_dir: Path
    """The skill's folder: relative paths in its body resolve against it."""
    scope: Scope
    disable_model_invocation: bool = False


def name_problems(name: str) -> list[str]:
    """pi's naming rules, one message per broken rule."""
    problems: list[str] = []
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not re.fullmatch(r"[a-z0-9-]+", name):
        problems.append(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
        )
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def description_problems(description: object) -> list[str]:
    """Required, and at most 1024 characters."""
    if not isinstance(description, str) or not description.strip():
        return ["description is required"]
    if len(description) > MAX_DESCRIPTION_LENGTH:
        return [f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})"]
    return []


def parse_skill(
    path: Path, content: str, scope: Scope
) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """The skill in ``content`` (the text of ``path``), and what is wrong with it."""
    declared = path.name == SKILL_FILE
    try:
        frontmatter, _body = parse_frontmatter(content)
    except FrontmatterError as exc:
        warnings = [ResourceDiagnostic("warning", str(exc), path)] if declared else []
        return None, warnings
    description = frontmatter.get("description")
    has_description = isinstance(description, str) and bool(description.strip())
    if not declared and not has_description:
        return None, []
    diagnostics = [
        ResourceDiagnostic("warning", m, path) for m in description_problems(description)
    ]
    declared_name = frontmatter.get("name")
    name = declared_name if isinstance(declared_name, str) and declared_name else path.parent.name
    diagnostics += [ResourceDiagnostic("warning", m, path) for m in name_problems(name)]
    if not has_description:
        return None, diagnostics
    assert isinstance(description, str)
    skill = Skill(
        name=name,
        description=description,
        file_path=path,
        base_dir=path.parent,
        scope=scope,
        disable_model_invocation=frontmatter.get("disable-model-invocation") is True,
    )
    return skill, diagnostics


def read_skill(path: Path, scope: Scope) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """Read and parse one skill file (blocking: the loader runs it in a thread)."""
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, [ResourceDiagnostic("warning", f"cannot be read: {reason}", path)]
    return parse_skill(path, content, scope)
