"""One line on a pi 1.6 system message, from its JSON (standard library only).

The session tree rows read raw entries and must stay light, and the conversation card
and ``pitui session context`` say the same thing: so the line is made here, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def system_summary(message: Mapping[str, Any]) -> str:
    """``5 sections, 4 tools`` for a prompt, ``tools, rules; −bash, −edit`` for a change.

    Works on the message's JSON (the tree rows read raw entries).
    """
    sections = message.get("sections")
    named = [str(k) for k in sections] if isinstance(sections, dict) else []
    added = _tool_names(message.get("toolsAdded"))
    removed = _tool_names(message.get("toolsRemoved"))
    content = message.get("content")
    parts: list[str] = []
    if removed or not added:  # a change: name what it touches
        if content:
            parts.append("instructions")
        parts += named
        changes = [f"+{name}" for name in added] + [f"−{name}" for name in removed]
        text = ", ".join(parts)
        return "; ".join(p for p in (text, ", ".join(changes)) if p) or "no change"
    if named:
        parts.append(f"{len(named)} section{'s' if len(named) != 1 else ''}")
    elif content:
        parts.append("prompt")
    parts.append(f"{len(added)} tool{'s' if len(added) != 1 else ''}")
    return ", ".join(parts)


def _tool_names(value: object) -> list[str]:
    items = value if isinstance(value, list) else []
    return [str(t.get("name")) for t in items if isinstance(t, dict) and t.get("name")]
