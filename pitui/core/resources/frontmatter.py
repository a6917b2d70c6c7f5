"""YAML frontmatter of a Markdown file, split off as pi does.

A file that starts with ``---`` and has a later line starting with ``---`` has
frontmatter between them; the body after it is trimmed. Without frontmatter the body
is the whole text (newlines normalised, a BOM dropped). Invalid YAML raises
:class:`FrontmatterError` with a one-line reason.
"""

from __future__ import annotations

from typing import Any


class FrontmatterError(ValueError):
    """The frontmatter is not valid YAML."""


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF; a leading BOM goes."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def split_frontmatter(content: str) -> tuple[str | None, str]:
    """``(yaml text or None, body)``."""
    text = normalize_newlines(content)
    if not text.startswith("---"):
        return None, text
    end = text.find("\n---", 3)
    if end == -1:
        return None, text
    return text[4:end], text[end + 4 :].strip()


def parse_frontmatter(content: str) -> tuple[dict[str, Any], str]:
    """``(frontmatter mapping, body)``; a frontmatter that is not a mapping counts as empty."""
    source, body = split_frontmatter(content)
    if source is None:
        return {}, body
    import yaml  # only once a file has frontmatter: PyYAML costs ~10 ms to import

    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"invalid frontmatter: {problem}{where}") from exc
    return (data if isinstance(data, dict) else {}), body


def strip_frontmatter(content: str) -> str:
    """The body only (frontmatter parsed, so invalid YAML still raises)."""
    return parse_frontmatter(content)[1]
