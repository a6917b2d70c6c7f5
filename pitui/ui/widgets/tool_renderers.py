"""How each tool's card reads: header and body, chosen from a registry by tool name.

Headers follow pi (``read path:a-b``, ``$ cmd``, ``edit path:line`` …); collapsed bodies
show pi's line budgets (read/write 10, bash last 5, ls/find 20, grep 15) and a
``... (N more lines, ctrl+o to expand)`` hint. Everything shown passes through
:func:`~pitui.core.sanitize.inert`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from textual.content import Content

from pitui.core.sanitize import inert
from pitui.ui.view.format import shorten_path
from pitui.ui.view.state import ToolCardItem

EXPAND_KEY = "ctrl+o"
TITLE = "bold $pi-toolTitle"
ACCENT = "$pi-accent"
WARNING = "$pi-warning"
OUTPUT = "$pi-toolOutput"
MUTED = "$pi-muted"
ERROR = "$pi-error"


def _arg(args: Mapping[str, Any], *names: str) -> str | None:
    for name in names:
        value = args.get(name)
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value)
    return None


def _path(args: Mapping[str, Any], default: str = "...") -> Content:
    raw = _arg(args, "path", "file_path")
    if raw is None:
        return Content.styled(default, OUTPUT)
    return Content.styled(inert(shorten_path(raw)), ACCENT)


def _lines(text: str, style: str = OUTPUT) -> Content:
    return Content("\n").join(Content.styled(line, style) for line in text.split("\n"))


def _more(remaining: int, suffix: str = "") -> Content:
    return Content.styled(f"... ({remaining} more lines{suffix}, {EXPAND_KEY} to expand)", MUTED)


class ToolRenderer:
    """The generic renderer: the tool name, its arguments and the head of the output."""

    collapsed_lines = 10

    def header(self, card: ToolCardItem) -> Content:
        """One line naming the call as pi does."""
        args = inert(json.dumps(dict(card.args), ensure_ascii=False)) if card.args else ""
        if len(args) > 60:
            args = args[:57] + "..."
        return Content.assemble((card.tool_name, TITLE), " ", (args, MUTED))

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


class ReadRenderer(ToolRenderer):
    def header(self, card: ToolCardItem) -> Content:
        parts = [Content.styled("read", TITLE), Content(" "), _path(card.args)]
        offset, limit = card.args.get("offset"), card.args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
            parts.append(Content.styled(f":{start}{end}", WARNING))
        return Content.assemble(*parts)


class WriteRenderer(ToolRenderer):
    def header(self, card: ToolCardItem) -> Content:
        return Content.assemble(("write", TITLE), " ", _path(card.args))

    def body(self, card: ToolCardItem) -> Content | None:
        if card.state in ("error", "denied"):
            return _lines(inert(card.output), ERROR) if card.output else None
        diff = _details_diff(card.details)
        if diff:
            return render_diff(diff)
        content = _arg(card.args, "content")
        if not content:
            return None
        total = len(content.split("\n"))
        return self.head(card, inert(content), f", {total} total")


class EditRenderer(ToolRenderer):
    def header(self, card: ToolCardItem) -> Content:
        parts = [Content.styled("edit", TITLE), Content(" "), _path(card.args)]
        line = card.details.get("firstChangedLine") if isinstance(card.details, dict) else None
        if isinstance(line, int) and card.state == "success":
            parts.append(Content.styled(f":{line}", WARNING))
        return Content.assemble(*parts)

    def body(self, card: ToolCardItem) -> Content | None:
        if card.state in ("error", "denied"):
            return _lines(inert(card.output), ERROR) if card.output else None
        diff = _details_diff(card.details)
        return render_diff(diff) if diff else None


class BashRenderer(ToolRenderer):
    collapsed_lines = 5

    def header(self, card: ToolCardItem) -> Content:
        command = _arg(card.args, "command")
        shown = (
            Content.styled(f"$ {inert(command)}", TITLE)
            if command
            else Content.assemble(("$ ", TITLE), ("...", OUTPUT))
        )
        timeout = card.args.get("timeout")
        if isinstance(timeout, int | float):
            return Content.assemble(shown, (f" (timeout {timeout}s)", MUTED))
        return shown

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


class SearchRenderer(ToolRenderer):
    """grep / find: ``grep /pattern/ in path``, ``find pattern in path``."""

    def __init__(self, name: str, lines: int, slashes: bool) -> None:
        self.name = name
        self.collapsed_lines = lines
        self.slashes = slashes

    def header(self, card: ToolCardItem) -> Content:
        pattern = inert(_arg(card.args, "pattern") or "")
        shown = f"/{pattern}/" if self.slashes else pattern
        path = inert(shorten_path(_arg(card.args, "path") or "."))
        return Content.assemble((self.name, TITLE), " ", (shown, ACCENT), (f" in {path}", OUTPUT))


class LsRenderer(ToolRenderer):
    collapsed_lines = 20

    def header(self, card: ToolCardItem) -> Content:
        path = inert(shorten_path(_arg(card.args, "path") or "."))
        return Content.assemble(("ls", TITLE), " ", (path, ACCENT))


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
    "read": ReadRenderer(),
    "write": WriteRenderer(),
    "edit": EditRenderer(),
    "bash": BashRenderer(),
    "grep": SearchRenderer("grep", 15, slashes=True),
    "find": SearchRenderer("find", 20, slashes=False),
    "ls": LsRenderer(),
}


def register_renderer(tool_name: str, renderer: ToolRenderer) -> None:
    """Use ``renderer`` for cards of ``tool_name`` (e.g. a custom tool)."""
    _REGISTRY[tool_name] = renderer


def renderer_for(tool_name: str) -> ToolRenderer:
    """The renderer registered for ``tool_name``, or the generic one."""
    return _REGISTRY.get(tool_name, _DEFAULT)
