"""The entry tree of a session as text (``pitui session tree``).

Read from the raw entries (no validation), iteratively (a path can be 100k entries deep).
A linear chain stays in one column; a fork indents its branches with tree glyphs.
"""

from __future__ import annotations

import json
from typing import Any

from pitui.core.session.table import EntryTable
from pitui.core.session.tree import child_positions


def _flat(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "toolCall":
            parts.append(f"→ {block.get('name')}({json.dumps(block.get('arguments'))})")
    return " ".join(parts)


def describe(raw: dict[str, Any]) -> str:
    """One-line summary of an entry."""
    kind = raw.get("type")
    if kind == "message" and isinstance(raw.get("message"), dict):
        message = raw["message"]
        role = message.get("role")
        if role == "toolResult":
            return f"toolResult {message.get('toolName')}: {_flat(_message_text(message), 50)}"
        if role == "bashExecution":
            return f"bash: {_flat(str(message.get('command', '')))}"
        if role == "custom":
            return f"custom [{message.get('customType')}]"
        return f"{role}: {_flat(_message_text(message))}"
    details = {
        "thinking_level_change": lambda: f"thinking → {raw.get('thinkingLevel')}",
        "model_change": lambda: f"model → {raw.get('provider')}/{raw.get('modelId')}",
        "compaction": lambda: (
            f"compaction (tokensBefore {raw.get('tokensBefore')}, "
            f"kept from {raw.get('firstKeptEntryId')})"
        ),
        "branch_summary": lambda: f"branch summary: {_flat(str(raw.get('summary', '')), 50)}",
        "label": lambda: f"label {raw.get('targetId')} = {raw.get('label')!r}",
        "session_info": lambda: f"name: {raw.get('name')!r}",
        "custom": lambda: f"custom entry [{raw.get('customType')}]",
        "custom_message": lambda: f"custom message [{raw.get('customType')}]",
    }
    make = details.get(str(kind))
    return make() if make else f"({kind})"


def render_tree(table: EntryTable, labels: dict[str, str], leaf_id: str | None) -> str:
    """The tree, one entry per line: ``*`` marks the active path, ``← leaf`` the leaf."""
    roots, children = child_positions(table)
    leaf = table.index.get(leaf_id) if leaf_id is not None else None
    active = set(table.path_positions(leaf)) if leaf is not None else set()
    lines: list[str] = []
    stack: list[tuple[int, str, str]] = [(r, "", "") for r in reversed(roots)]
    while stack:
        position, line_prefix, child_prefix = stack.pop()
        entry_id = table.ids[position]
        mark = "*" if position in active else " "
        label = f"  [{labels[entry_id]}]" if entry_id in labels else ""
        tail = "  ← leaf" if position == leaf else ""
        lines.append(f"{line_prefix}{mark} {entry_id} {describe(table.raw(position))}{label}{tail}")
        kids = children[position]
        if len(kids) == 1:
            stack.append((kids[0], child_prefix, child_prefix))
            continue
        for number in range(len(kids) - 1, -1, -1):
            last = number == len(kids) - 1
            stack.append(
                (
                    kids[number],
                    child_prefix + ("└─ " if last else "├─ "),
                    child_prefix + ("   " if last else "│  "),
                )
            )
    return "".join(line + "\n" for line in lines)
