"""How each tool's card reads: header and body, chosen from a registry by tool name.

Headers follow pi (``read path:a-b``, ``$ cmd``, ``edit path:line`` …); collapsed bodies
show pi's line budgets (read/write 10, bash last 5, ls/find 20, grep 15) and a
``... (N more lines, ctrl+o to expand)`` hint. Everything shown passes through
:func:`~pitui.core.sanitize.inert`.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from pitui.core.sanitize import inert
from pitui.core.tool_titles import PartKind, arg_text, tool_title
from pitui.ui.view.format import shorten_path
from pitui.ui.view.state import ToolCardItem

EXPAND_KEY = "ctrl+o"
TITLE = "bold $pi-toolTitle"
ACCENT = "$pi-accent"
WARNING = "$pi-warning"
OUTPUT = "$pi-toolOutput"
MUTED = "$pi-muted"
ERROR = "$pi-error"


_PART_STYLES = {
    "title": TITLE,
    "path": ACCENT,
    "plain_path": OUTPUT,
    "accent": ACCENT,
    "warning": WARNING,
    "output": OUTPUT,
    "muted": MUTED,
}


TITLE_PART_CHARS = 2000
"""A title part longer than this (a 1 MB command) is cut: a header is a line or two, and
wrapping the whole of it on every frame froze the screen. The approval dialog and the
exports show such a call in full."""


def _title_part(text: str, kind: PartKind) -> tuple[str, str] | str:
    if kind == "space":
        return text
    shown = shorten_path(text) if kind in ("path", "plain_path") else text
    if len(shown) > TITLE_PART_CHARS:
        rest = len(shown) - TITLE_PART_CHARS
        shown = f"{shown[:TITLE_PART_CHARS]}… ({rest:,} more characters)"
    return inert(shown), _PART_STYLES[kind]


def _lines(text: str, style: str = OUTPUT) -> Content:
    return Content("\n").join(Content.styled(line, style) for line in text.split("\n"))


def _more(remaining: int, suffix: str = "") -> Content:
    return Content.styled(f"... ({remaining} more lines{suffix}, {EXPAND_KEY} to expand)", MUTED)


class ToolRenderer:
    """The generic renderer: the call's title and the head of the output."""

    collapsed_lines = 10

    def __init__(self, collapsed_lines: int | None = None) -> None:
        if collapsed_lines is not None:
            self.collapsed_lines = collapsed_lines

    def header(self, card: ToolCardItem) -> Content:
        """One line naming the call as pi does (the words: :mod:`pitui.core.tool_titles`)."""
        parts = tool_title(
            card.tool_name, card.args, card.details, succeeded=card.state == "success"
        )
        return Content.assemble(*(_title_part(text, kind) for text, kind in parts))

    def body(self, card: ToolCardItem) -> Content | None:
        """The card's body below the header, or None."""
        return self.head(card, inert(card.output).rstrip("\n"))

    def head(self, card: ToolCardItem, text: str, suffix: str = "") -> Content | None:
        """The first lines of ``text`` (all when expanded) plus the "more" hint."""
        if not text:
            return None
        style = ERROR if card.state in ("error", "denied") else OUTPUT
        lines = text.split("\n")
        if card.expanded or len(lines) <= self.collapsed_lines:
            return _lines(text, style)
        shown = "\n".join(lines[: self.collapsed_lines])
        rest = len(lines) - self.collapsed_lines
        return Content("\n").join([_lines(shown, style), _more(rest, suffix)])


class WriteRenderer(ToolRenderer):
    def body(self, card: ToolCardItem) -> Content | None:
        if card.state in ("error", "denied"):
            return _lines(inert(card.output), ERROR) if card.output else None
        diff = _details_diff(card.details)
        if diff:
            return render_diff(diff)
        content = arg_text(card.args, "content")
        if not content:
            return None
        total = len(content.split("\n"))
        return self.head(card, inert(content), f", {total} total")


class EditRenderer(ToolRenderer):
    def body(self, card: ToolCardItem) -> Content | None:
        if card.state in ("error", "denied"):
            return _lines(inert(card.output), ERROR) if card.output else None
        diff = _details_diff(card.details)
        return render_diff(diff) if diff else None


class BashRenderer(ToolRenderer):
    collapsed_lines = 5

    def body(self, card: ToolCardItem) -> Content | None:
        text = inert(card.output).strip("\n")
        parts: list[Content] = []
        if text:
            lines = text.split("\n")
            style = ERROR if card.state in ("error", "denied") else OUTPUT
            if card.expanded or len(lines) <= self.collapsed_lines:
                parts.append(_lines(text, style))
            else:
                skipped = len(lines) - self.collapsed_lines
                hint = f"... ({skipped} earlier lines, {EXPAND_KEY} to expand)"
                parts.append(Content.styled(hint, MUTED))
                parts.append(_lines("\n".join(lines[-self.collapsed_lines :]), style))
        path = card.details.get("fullOutputPath") if isinstance(card.details, dict) else None
        if isinstance(path, str):
            parts.append(Content.styled(f"[Full output: {inert(path)}]", WARNING))
        return Content("\n").join(parts) if parts else None


def _details_diff(details: Any) -> str | None:
    diff = details.get("diff") if isinstance(details, dict) else None
    return diff if isinstance(diff, str) and diff else None


_DIFF_STYLES = {"+": "$pi-toolDiffAdded", "-": "$pi-toolDiffRemoved"}


def render_diff(diff: str) -> Content:
    """pi's diff lines (``+<n> text``, ``-<n> text``, `` <n> text``) coloured."""
    lines = inert(diff).split("\n")
    styled = (Content.styled(ln, _DIFF_STYLES.get(ln[:1], "$pi-toolDiffContext")) for ln in lines)
    return Content("\n").join(styled)


_DEFAULT = ToolRenderer()
_REGISTRY: dict[str, ToolRenderer] = {
    "read": ToolRenderer(),
    "write": WriteRenderer(),
    "edit": EditRenderer(),
    "bash": BashRenderer(),
    "grep": ToolRenderer(collapsed_lines=15),
    "find": ToolRenderer(collapsed_lines=20),
    "ls": ToolRenderer(collapsed_lines=20),
}


def register_renderer(tool_name: str, renderer: ToolRenderer) -> None:
    """Use ``renderer`` for cards of ``tool_name`` (e.g. a custom tool)."""
    _REGISTRY[tool_name] = renderer


def renderer_for(tool_name: str) -> ToolRenderer:
    """The renderer registered for ``tool_name``, or the generic one."""
    return _REGISTRY.get(tool_name, _DEFAULT)
