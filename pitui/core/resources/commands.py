"""Skills and prompt templates as slash commands: for completion, the palette and dispatch.

A template ``review.md`` is ``/review``; a skill ``hello`` is ``/skill:hello`` (listed only
when ``enableSkillCommands`` is on, as pi's; typed ones work either way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pitui.core.resources.loader import LoadedResources
from pitui.core.resources.skill_prompt import SKILL_COMMAND_PREFIX


@dataclass(frozen=True, slots=True)
class ResourceCommand:
    """One command a skill or a template provides."""

    name: str
    """Without the slash: ``review``, ``skill:hello``."""
    description: str
    argument_hint: str
    kind: Literal["template", "skill"]


def resource_commands(
    resources: LoadedResources, *, skill_commands: bool = True
) -> list[ResourceCommand]:
    """Templates, then skills (each in load order)."""
    found = [
        ResourceCommand(t.name, t.description, t.argument_hint or "", "template")
        for t in resources.templates
    ]
    if skill_commands:
        found += [
            ResourceCommand(f"skill:{s.name}", s.description, "[request]", "skill")
            for s in resources.skills
        ]
    return found


def names_resource_command(text: str, resources: LoadedResources) -> bool:
    """Whether ``text`` (as typed) is a template or skill command the session expands."""
    if not text.startswith("/"):
        return False
    name = text[1:].split(None, 1)[0] if len(text) > 1 else ""
    if text.startswith(SKILL_COMMAND_PREFIX):
        return any(s.name == name.removeprefix("skill:") for s in resources.skills)
    return any(t.name == name for t in resources.templates)
