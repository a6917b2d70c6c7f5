"""What the model is told about skills, worded exactly as pi 1.6 words it.

The system prompt lists each model-invocable skill's name, description and location
(never its body); ``/skill:name args`` becomes a ``<skill>`` block holding the body,
followed by the arguments as the user's request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pitui.core.resources.frontmatter import FrontmatterError, strip_frontmatter
from pitui.core.resources.skills import Skill
from pitui.errors import PituiError

SKILL_COMMAND_PREFIX = "/skill:"
SkillReader = Literal["read", "bash"]
"""The tool the model loads a skill's file with."""

_LOAD_LINE = {
    "read": "Use the read tool to load a skill's file when the task matches its description.",
    "bash": "Use bash to load a skill's file when the task matches its description.",
}


def escape_xml(text: str) -> str:
    """The five XML entities, as pi escapes them."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def skill_reader(tools: Sequence[str]) -> SkillReader | None:
    """The tool that can load a skill (read, else bash); None: no skills block."""
    if "read" in tools:
        return "read"
    if "bash" in tools:
        return "bash"
    return None


def format_skills_for_prompt(skills: Sequence[Skill], reader: SkillReader = "read") -> str:
    """The skills block (starting with a blank line), or "" when no skill is visible."""
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "\n\nThe following skills provide specialized instructions for specific tasks.",
        _LOAD_LINE[reader],
        "Resolve relative paths against the skill's directory (parent of SKILL.md). "
        "Use absolute paths in tool calls.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{escape_xml(skill.name)}</name>",
            f"    <description>{escape_xml(skill.description)}</description>",
            f"    <location>{escape_xml(str(skill.file_path))}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def skill_block(skill: Skill, body: str, args: str) -> str:
    """The message ``/skill:name args`` sends: the body in a ``<skill>`` block, then args."""
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block


def split_skill_command(text: str) -> tuple[str, str] | None:
    """``(name, args)`` of a ``/skill:name args`` text, else None."""
    if not text.startswith(SKILL_COMMAND_PREFIX):
        return None
    rest = text[len(SKILL_COMMAND_PREFIX) :]
    name, _, args = rest.partition(" ")
    return name, args.strip()


class SkillExpansionError(PituiError):
    """The skill's file could not be read when invoked (nothing is sent)."""


async def expand_skill_command(text: str, skills: Sequence[Skill]) -> str:
    """``text`` with a leading ``/skill:name`` expanded; unchanged when it names none."""
    parsed = split_skill_command(text)
    if parsed is None:
        return text
    name, args = parsed
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return text
    body = await _read_body(skill.file_path)
    return skill_block(skill, body, args)


async def _read_body(path: Path) -> str:
    try:
        content = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
        return strip_frontmatter(content).strip()
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        raise SkillExpansionError(f"skill {path} cannot be read: {exc}") from exc
