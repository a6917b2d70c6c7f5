"""How a tool call is named in one line, as pi words it (PI_SPEC §9.6).

``read path:a-b``, ``write path``, ``edit path:line``, ``$ command (timeout Ns)``,
``grep /pattern/ in path``, ``find pattern in path``, ``ls path``; an MCP tool is
``server/tool`` and its arguments; any other tool is its name and its arguments as
JSON. The title comes as parts tagged with their role, so the TUI's tool cards and the
HTML export colour the same words the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeAlias

PartKind: TypeAlias = Literal[
    "title", "path", "plain_path", "accent", "warning", "output", "muted", "space"
]
TitlePart: TypeAlias = tuple[str, PartKind]
"""A run of the title and its role: ``path`` is a file path in the accent colour,
``plain_path`` one in the output colour (a display may shorten both); ``space`` is the
unstyled gap after the tool's name."""
_GAP: TitlePart = (" ", "space")

_ARGS_WIDTH = 60


def arg_text(args: Mapping[str, Any], *names: str) -> str | None:
    """The first of ``names`` present in ``args``, as text (non-strings as JSON)."""
    for name in names:
        value = args.get(name)
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value)
    return None


def _path(args: Mapping[str, Any]) -> TitlePart:
    raw = arg_text(args, "path", "file_path")
    return (raw, "path") if raw is not None else ("...", "output")


def _generic(name: str, args: Mapping[str, Any]) -> list[TitlePart]:
    shown = json.dumps(dict(args), ensure_ascii=False) if args else ""
    if len(shown) > _ARGS_WIDTH:
        shown = shown[: _ARGS_WIDTH - 3] + "..."
    return [(name, "title"), _GAP, (shown, "muted")]


def _read(args: Mapping[str, Any], details: Any, succeeded: bool) -> list[TitlePart]:
    parts: list[TitlePart] = [("read", "title"), _GAP, _path(args)]
    offset, limit = args.get("offset"), args.get("limit")
    if isinstance(offset, int) or isinstance(limit, int):
        start = offset if isinstance(offset, int) else 1
        end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
        parts.append((f":{start}{end}", "warning"))
    return parts


def _write(args: Mapping[str, Any], details: Any, succeeded: bool) -> list[TitlePart]:
    return [("write", "title"), _GAP, _path(args)]


def _edit(args: Mapping[str, Any], details: Any, succeeded: bool) -> list[TitlePart]:
    parts: list[TitlePart] = [("edit", "title"), _GAP, _path(args)]
    line = details.get("firstChangedLine") if isinstance(details, dict) else None
    if isinstance(line, int) and succeeded:
        parts.append((f":{line}", "warning"))
    return parts


def _bash(args: Mapping[str, Any], details: Any, succeeded: bool) -> list[TitlePart]:
    command = arg_text(args, "command")
    parts: list[TitlePart] = (
        [(f"$ {command}", "title")] if command else [("$ ", "title"), ("...", "output")]
    )
    timeout = args.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        parts.append((f" (timeout {timeout}s)", "muted"))
    return parts


def _search(name: str, slashes: bool) -> Callable[[Mapping[str, Any], Any, bool], list[TitlePart]]:
    def title(args: Mapping[str, Any], details: Any, succeeded: bool) -> list[TitlePart]:
        pattern = arg_text(args, "pattern") or ""
        shown = f"/{pattern}/" if slashes else pattern
        path = arg_text(args, "path") or "."
        return [(name, "title"), _GAP, (shown, "accent"), (" in ", "output"),
                (path, "plain_path")]  # fmt: skip

    return title


def _ls(args: Mapping[str, Any], details: Any, succeeded: bool) -> list[TitlePart]:
    return [("ls", "title"), _GAP, (arg_text(args, "path") or ".", "path")]


_TITLES: dict[str, Callable[[Mapping[str, Any], Any, bool], list[TitlePart]]] = {
    "read": _read,
    "write": _write,
    "edit": _edit,
    "bash": _bash,
    "grep": _search("grep", slashes=True),
    "find": _search("find", slashes=False),
    "ls": _ls,
}


def tool_title(
    name: str, args: Mapping[str, Any], details: Any = None, *, succeeded: bool = False
) -> list[TitlePart]:
    """The one-line title of a call to ``name`` with ``args``.

    ``details`` and ``succeeded`` come from the result: a finished edit names its first
    changed line.
    """
    make = _TITLES.get(name)
    if make is None and name.startswith("mcp__"):
        return _generic(mcp_label(name, details), args)
    return make(args, details, succeeded) if make else _generic(name, args)


def mcp_label(name: str, details: Any = None) -> str:
    """``server/tool`` for an MCP tool call: from the result's details when there is one
    (exact names), else from ``mcp__<server>__<tool>`` (sanitised names)."""
    if isinstance(details, dict):
        server, tool = details.get("server"), details.get("tool")
        if isinstance(server, str) and isinstance(tool, str):
            return f"{server}/{tool}"
    server, _, tool = name.removeprefix("mcp__").partition("__")
    return f"{server}/{tool}" if tool else name


def tool_title_text(
    name: str, args: Mapping[str, Any], details: Any = None, *, succeeded: bool = False
) -> str:
    """:func:`tool_title` as plain text."""
    return "".join(text for text, _ in tool_title(name, args, details, succeeded=succeeded))
