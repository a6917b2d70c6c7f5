"""What one entry looks like as a row of pi's ``/tree`` (PI_SPEC §9.7): its text and
its search text, read from the entry's raw JSON (no validation: a tree of a damaged file
still draws).

Every string is made inert (escape sequences and control characters removed): rows are
printed by ``pitui session tree`` as well as drawn by the Branches pane.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

from pitui.core.display import shorten_path
from pitui.core.sanitize import inert
from pitui.core.system_summary import system_summary

if TYPE_CHECKING:
    from pitui.core.session.table import EntryTable

RowKind: TypeAlias = Literal[
    "user", "assistant", "tool", "bash", "custom", "compaction", "summary", "setting", "system"
]
"""How a row is styled: the part of pi's row that takes a theme colour."""

MAX_TEXT = 200
"""pi cuts a message's text to 200 characters before showing or searching it."""


class RowText(NamedTuple):
    """The text of a row, split where pi changes colour (a named tuple: immutable and cheap
    to build, once per row of a 100k-entry tree or context report)."""

    kind: RowKind
    head: str
    """The coloured part, e.g. ``user: `` or ``[compaction: 12k tokens]``."""
    body: str = ""
    """The rest, in the text colour."""
    muted: bool = False
    """pi shows the body dimmed (``(aborted)``, ``(no content)``)."""

    @property
    def plain(self) -> str:
        return self.head + self.body


@dataclass(frozen=True, slots=True)
class TreeRow:
    """One row as pi draws it, without the 2-column cursor."""

    entry_id: str
    prefix: str
    """Gutters and connector (the fold glyph sits in the connector)."""
    fold_marker: str
    """``⊞ `` for a folded row that has no connector to show it in."""
    on_path: bool
    is_leaf: bool
    label: str | None
    text: RowText
    broken: bool = False
    """A root whose parent is missing from the file (or was cut to break a cycle)."""
    files: int = 0
    """Files the run ending here changed (its checkpoint's count; pitui only)."""

    def line(self) -> str:
        """The row as plain text (pi's order: prefix, fold, path marker, label, text)."""
        path = "• " if self.on_path else ""
        label = f"[{self.label}] " if self.label else ""
        broken = "⚠ broken link: " if self.broken else ""
        leaf = " ←" if self.is_leaf else ""
        return f"{self.prefix}{self.fold_marker}{path}{broken}{label}{self.text.plain}{leaf}"


ToolCalls: TypeAlias = Mapping[str, tuple[str, Mapping[str, Any]]]
"""Tool-call id → (tool name, arguments), from the assistant messages of the file."""


def _flat(text: str) -> str:
    return inert(text.replace("\n", " ").replace("\t", " ")).strip()


def content_text(content: object, limit: int = MAX_TEXT) -> str:
    """The text blocks of a message's content, joined, cut to ``limit`` (pi's extractContent)."""
    if isinstance(content, str):
        return content[:limit]
    result = ""
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                result += str(block.get("text", ""))
                if len(result) >= limit:
                    return result[:limit]
    return result


def has_text(content: object) -> bool:
    """Whether some text block holds more than whitespace."""
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(
            isinstance(b, dict) and b.get("type") == "text" and str(b.get("text") or "").strip()
            for b in content
        )
    return False


def tool_calls_of(message: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(id, name, arguments) of each toolCall block of an assistant message."""
    calls: list[tuple[str, str, Mapping[str, Any]]] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "toolCall":
            arguments = block.get("arguments")
            args = arguments if isinstance(arguments, dict) else {}
            calls.append((str(block.get("id", "")), str(block.get("name", "")), args))
    return calls


def entry_tool_calls(table: EntryTable, position: int) -> list[tuple[str, str, Mapping[str, Any]]]:
    """The tool calls of an assistant entry: a typed one's own (its arguments are not
    decoded a second time to be kept beside the model's), else read from its line."""
    if table.is_typed(position):
        from pitui.ai.types import AssistantMessage  # loaded: an entry is typed

        message = getattr(table.entry(position), "message", None)
        if isinstance(message, AssistantMessage):
            return [(call.id, call.name, call.arguments) for call in message.tool_calls()]
    from pitui.core.session.row_fields import row_fields  # (it imports the table)

    message = row_fields(table, position).get("message")
    return tool_calls_of(message if isinstance(message, dict) else {})


def _arg(args: Mapping[str, Any], *names: str, default: str = "") -> str:
    for name in names:
        value = args.get(name)
        if value:
            return str(value)
    return default


def tool_call_text(name: str, args: Mapping[str, Any]) -> str:
    """A tool result's row, from its call: ``[read: path:a-b]``, ``[bash: cmd]``, …"""
    path = shorten_path(_arg(args, "path", "file_path"))
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if offset is not None or limit is not None:
            start = offset if offset is not None else 1
            end = (
                f"-{start + limit - 1}" if isinstance(limit, int) and isinstance(start, int) else ""
            )
            path += f":{start}{end}"
        return f"[read: {path}]"
    if name in ("write", "edit"):
        return f"[{name}: {path}]"
    if name == "bash":
        raw = _arg(args, "command")
        cmd = raw.replace("\n", " ").replace("\t", " ").strip()[:50]
        return f"[bash: {cmd}{'...' if len(raw) > 50 else ''}]"
    where = shorten_path(_arg(args, "path", default="."))
    if name == "grep":
        return f"[grep: /{_arg(args, 'pattern')}/ in {where}]"
    if name == "find":
        return f"[find: {_arg(args, 'pattern')} in {where}]"
    if name == "ls":
        return f"[ls: {where}]"
    encoded = json.dumps(dict(args), separators=(",", ":"), ensure_ascii=False)
    return f"[{name}: {encoded[:40]}{'...' if len(encoded) > 40 else ''}]"


def _message_row(message: Mapping[str, Any], calls: ToolCalls) -> RowText:
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        return RowText("user", "user: ", _flat(content_text(content)))
    if role == "assistant":
        text = _flat(content_text(content))
        if text:
            return RowText("assistant", "assistant: ", text)
        if message.get("stopReason") == "aborted":
            return RowText("assistant", "assistant: ", "(aborted)", muted=True)
        if message.get("errorMessage"):
            return RowText("assistant", "assistant: ", _flat(str(message["errorMessage"]))[:80])
        return RowText("assistant", "assistant: ", "(no content)", muted=True)
    if role == "toolResult":
        call = calls.get(str(message.get("toolCallId", "")))
        if call is not None:
            return RowText("tool", inert(tool_call_text(*call)))
        return RowText("tool", inert(f"[{message.get('toolName') or 'tool'}]"))
    if role == "bashExecution":
        return RowText("bash", f"[bash]: {_flat(str(message.get('command', '')))}")
    if role == "system":
        return RowText("system", inert(f"[system prompt: {system_summary(message)}]"))
    return RowText("setting", inert(f"[{role}]"))


def row_text(raw: Mapping[str, Any], calls: ToolCalls) -> RowText:
    """The row pi shows for an entry (PI_SPEC §9.7), made inert."""
    kind = raw.get("type")
    if kind == "message" and isinstance(raw.get("message"), dict):
        return _message_row(raw["message"], calls)
    if kind == "custom_message":
        body = _flat(content_text(raw.get("content"), limit=1_000_000))
        return RowText("custom", inert(f"[{raw.get('customType')}]: "), body)
    if kind == "compaction":
        tokens = raw.get("tokensBefore")
        thousands = round(tokens / 1000) if isinstance(tokens, int | float) else 0
        return RowText("compaction", f"[compaction: {thousands}k tokens]")
    if kind == "branch_summary":
        return RowText("summary", "[branch summary]: ", _flat(str(raw.get("summary", ""))))
    settings = {
        "model_change": lambda: f"[model: {raw.get('modelId')}]",
        "thinking_level_change": lambda: f"[thinking: {raw.get('thinkingLevel')}]",
        "custom": lambda: f"[custom: {raw.get('customType')}]",
        "label": lambda: f"[label: {raw.get('label') or '(cleared)'}]",
        "session_info": lambda: f"[title: {raw.get('name') or ''}]",
    }
    make = settings.get(str(kind))
    return RowText("setting", inert(make() if make else f"[{kind}]"))


def search_text(raw: Mapping[str, Any], label: str | None) -> str:
    """What typing in the tree searches, lower-cased (pi's getSearchableText)."""
    parts = [label] if label else []
    kind = raw.get("type")
    message = raw.get("message")
    if kind == "message" and isinstance(message, dict):
        parts.append(str(message.get("role", "")))
        parts.append(content_text(message.get("content")))
        if message.get("role") == "bashExecution":
            parts.append(str(message.get("command", "")))
    elif kind == "custom_message":
        parts += [str(raw.get("customType", "")), content_text(raw.get("content"), 1_000_000)]
    elif kind == "compaction":
        parts.append("compaction")
    elif kind == "branch_summary":
        parts += ["branch summary", str(raw.get("summary", ""))]
    elif kind == "model_change":
        parts += ["model", str(raw.get("modelId", ""))]
    elif kind == "thinking_level_change":
        parts += ["thinking", str(raw.get("thinkingLevel", ""))]
    elif kind == "custom":
        parts += ["custom", str(raw.get("customType", ""))]
    elif kind == "label":
        parts += ["label", str(raw.get("label") or "")]
    return " ".join(parts).lower()
