"""Prompt templates: Markdown files that become ``/name`` commands, as pi's.

The file name without ``.md`` is the command. ``description`` (else the first non-empty
line, cut at 60 characters) and ``argument-hint`` come from the frontmatter and show
in completion; the body is the prompt, with the arguments substituted
(:mod:`.template_args`) when the command is used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from pitui.core.resources.diagnostics import ResourceDiagnostic
from pitui.core.resources.frontmatter import FrontmatterError, parse_frontmatter
from pitui.core.resources.skills import Scope
from pitui.core.resources.template_args import parse_command_args, substitute_args
from pitui.lazy_pattern import lazy_pattern

DESCRIPTION_FROM_BODY_LIMIT = 60
_COMMAND = lazy_pattern(r"/(\S+)(?:\s+(.*))?", re.DOTALL)


class PromptTemplate(msgspec.Struct, frozen=True):
    """One loaded template."""

    name: str
    description: str
    content: str
    file_path: Path
    scope: Scope
    argument_hint: str | None = None


def parse_template(
    path: Path, content: str, scope: Scope
) -> tuple[PromptTemplate | None, list[ResourceDiagnostic]]:
    """The template in ``content`` (the text of ``path``), or a warning."""
    try:
        frontmatter, body = parse_frontmatter(content)
    except FrontmatterError as exc:
        return None, [ResourceDiagnostic("warning", str(exc), path)]
    described = frontmatter.get("description")
    description = described if isinstance(described, str) else ""
    if not description:
        first = next((line for line in body.split("\n") if line.strip()), "")
        description = first[:DESCRIPTION_FROM_BODY_LIMIT]
        if len(first) > DESCRIPTION_FROM_BODY_LIMIT:
            description += "..."
    hint = frontmatter.get("argument-hint")
    template = PromptTemplate(
        name=path.name.removesuffix(".md"),
        description=description,
        content=body,
        file_path=path,
        scope=scope,
        argument_hint=hint if isinstance(hint, str) and hint else None,
    )
    return template, []


def read_template(
    path: Path, scope: Scope
) -> tuple[PromptTemplate | None, list[ResourceDiagnostic]]:
    """Read and parse one template file (blocking: the loader runs it in a thread)."""
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, [ResourceDiagnostic("warning", f"cannot be read: {reason}", path)]
    return parse_template(path, content, scope)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """``text`` expanded when it is ``/name args`` of a template; otherwise unchanged."""
    match = _COMMAND.fullmatch(text) if text.startswith("/") else None
    if match is None:
        return text
    template = next((t for t in templates if t.name == match[1]), None)
    if template is None:
        return text
    return substitute_args(template.content, parse_command_args(match[2] or ""))
