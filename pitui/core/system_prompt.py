"""The system prompt, assembled as pi does (PI_SPEC §10).

Identity, tool list, guidelines; then the append prompt, the project's context files
(AGENTS.md / CLAUDE.md from the filesystem root down to the cwd), the skills the model
may load (when it has read or bash to load them), the date and the cwd.
A custom prompt replaces only the first part; everything after it is still appended.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path

import msgspec

from pitui import paths
from pitui.core.context_files import context_file_candidates
from pitui.core.resources.skill_prompt import format_skills_for_prompt, skill_reader
from pitui.core.resources.skills import Skill

BUILTIN_TOOL_SNIPPETS = {
    "read": "Read file contents",
    "bash": "Execute bash commands (ls, grep, find, etc.)",
    "edit": "Make surgical edits to files (find exact text and replace)",
    "write": "Create or overwrite files",
    "grep": "Search file contents for patterns (respects .gitignore)",
    "find": "Find files by glob pattern (respects .gitignore)",
    "ls": "List directory contents",
}
DEFAULT_TOOLS = ("read", "bash", "edit", "write")


class ContextFile(msgspec.Struct, frozen=True):
    """A project instruction file and its content."""

    path: Path
    content: str


def _guidelines(tools: Sequence[str], extra: Sequence[str]) -> list[str]:
    has = set(tools)
    explore = has & {"grep", "find", "ls"}
    lines: list[str] = []
    if "bash" in has and not explore:
        lines.append("Use bash for file operations like ls, rg, find")
    elif "bash" in has:
        lines.append(
            "Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)"
        )
    if "read" in has and "edit" in has:
        lines.append(
            "Use read to examine files before editing. "
            "You must use this tool instead of cat or sed."
        )
    if "edit" in has:
        lines.append("Use edit for precise changes (old text must match exactly)")
    if "write" in has:
        lines.append("Use write only for new files or complete rewrites")
    if "edit" in has or "write" in has:
        lines.append(
            "When summarizing your actions, output plain text directly - "
            "do NOT use cat or bash to display what you did"
        )
    lines += [g.strip() for g in extra if g.strip()]
    lines += ["Be concise in your responses", "Show file paths clearly when working with files"]
    return list(dict.fromkeys(lines))


def _default_head(tools: Sequence[str], snippets: dict[str, str], extra: Sequence[str]) -> str:
    tool_lines = [
        f"- {name}: {snippets.get(name) or BUILTIN_TOOL_SNIPPETS.get(name, name)}" for name in tools
    ]
    guidelines = "\n".join(f"- {g}" for g in _guidelines(tools, extra))
    return (
        "You are an expert coding assistant operating inside pitui, a coding agent harness. "
        "You help users by reading files, executing commands, editing code, and writing new "
        "files.\n\n"
        f"Available tools:\n{chr(10).join(tool_lines) if tool_lines else '(none)'}\n\n"
        "In addition to the tools above, you may have access to other custom tools depending "
        "on the project.\n\n"
        f"Guidelines:\n{guidelines}"
    )


def build_system_prompt(
    *,
    cwd: Path,
    tools: Sequence[str] | None = None,
    custom_prompt: str | None = None,
    append_prompt: str | None = None,
    context_files: Sequence[ContextFile] = (),
    tool_snippets: dict[str, str] | None = None,
    guidelines: Sequence[str] = (),
    skills: Sequence[Skill] = (),
    today: dt.date | None = None,
) -> str:
    """Assemble the system prompt from already-loaded parts (pure, for tests and reuse)."""
    active = list(DEFAULT_TOOLS if tools is None else tools)
    prompt = custom_prompt or _default_head(active, tool_snippets or {}, guidelines)
    if append_prompt:
        prompt += f"\n\n{append_prompt}"
    if context_files:
        prompt += "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"
        for item in context_files:
            prompt += f"## {item.path}\n\n{item.content}\n\n"
    reader = skill_reader(active)
    if reader is not None:
        prompt += format_skills_for_prompt(skills, reader)
    date = (today or dt.datetime.now(dt.UTC).date()).isoformat()
    prompt += f"\nCurrent date: {date}"
    prompt += f"\nCurrent working directory: {str(cwd).replace(chr(92), '/')}"
    return prompt


def _expand_user(value: str) -> Path:
    return Path(os.path.expanduser(value))


def _read_text_now(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None


def _first_existing(candidates: Sequence[Path]) -> tuple[Path, str] | None:
    for path in candidates:
        content = _read_text_now(path)
        if content is not None:
            return path, content
    return None


def _context_files_now(cwd: Path) -> list[ContextFile]:
    found: list[ContextFile] = []
    seen: set[Path] = set()
    for candidates in context_file_candidates(cwd):
        first = _first_existing(candidates)
        if first is not None and first[0] not in seen:
            seen.add(first[0])
            found.append(ContextFile(*first))
    return found


async def load_context_files(cwd: Path) -> list[ContextFile]:
    """The pitui home's AGENTS.md/CLAUDE.md, then one per directory from root to ``cwd``.

    The whole walk is one trip to a worker thread: a file per directory and name is
    tried (~20 for a usual depth), and a trip each cost more than the reads.
    """
    return await asyncio.to_thread(_context_files_now, cwd)


async def resolve_prompt_option(value: str | None, fallbacks: Sequence[Path]) -> str | None:
    """A CLI value (literal text, or a path to a file), else the first existing fallback."""
    if value:
        maybe_file = _expand_user(value)
        if len(value) < 4096 and await asyncio.to_thread(maybe_file.is_file):
            return await asyncio.to_thread(_read_text_now, maybe_file)
        return value
    first = await asyncio.to_thread(_first_existing, fallbacks)
    return first[1] if first is not None else None


async def load_system_prompt(
    cwd: Path,
    tools: Sequence[str] | None,
    *,
    system_prompt: str | None = None,
    append_system_prompt: str | None = None,
    skills: Sequence[Skill] = (),
    context_files: Sequence[ContextFile] | None = None,
) -> str:
    """Everything from disk and flags, assembled into the prompt the model gets
    (``context_files``: already loaded with :func:`load_context_files`)."""
    project = paths.project_dir(cwd)
    custom = await resolve_prompt_option(
        system_prompt, [project / "SYSTEM.md", paths.home() / "SYSTEM.md"]
    )
    append = await resolve_prompt_option(
        append_system_prompt, [project / "APPEND_SYSTEM.md", paths.home() / "APPEND_SYSTEM.md"]
    )
    context = await load_context_files(cwd) if context_files is None else context_files
    return build_system_prompt(
        cwd=cwd,
        tools=tools,
        custom_prompt=custom,
        append_prompt=append,
        context_files=context,
        skills=skills,
    )
