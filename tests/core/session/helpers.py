"""Shared test data: fixture paths and small builders of raw session lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parents[2] / "fixtures"
PI_SESSIONS = FIXTURES / "pi-sessions"
ORACLE = FIXTURES / "pi-oracle"
NAMES = ("before-compaction", "large-session")

#: context oracle file suffix → leaf id (None: the last entry), per the oracle README.
ORACLE_LEAVES: dict[str, dict[str, str | None]] = {
    "before-compaction": {
        "v3.context": None,
        "context.leaf-line300": "8cfabdbf",
        "context.leaf-line500": "a5d6234a",
    },
    "large-session": {"v3.context": None, "context.leaf-line500": "291b8a84"},
}

HEADER: dict[str, Any] = {
    "type": "session",
    "version": 3,
    "id": "11111111-2222-4333-8444-555555555555",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/tmp/project",
}


def entry(
    entry_id: str, parent: str | None, kind: str = "message", **fields: Any
) -> dict[str, Any]:
    """A raw entry; ``message`` entries get a user message unless one is given."""
    data: dict[str, Any] = {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
    }
    if kind == "message" and "message" not in fields:
        fields["message"] = {"role": "user", "content": f"text {entry_id}", "timestamp": 1}
    data.update(fields)
    return data


def assistant(text: str = "ok", timestamp: int = 2, **fields: Any) -> dict[str, Any]:
    """A raw assistant message."""
    data: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-x",
        "usage": {
            "input": 1,
            "output": 1,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 2,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "stop",
        "timestamp": timestamp,
    }
    data.update(fields)
    return data


def jsonl(objects: list[dict[str, Any]]) -> bytes:
    """Objects as pi writes them: compact JSON lines with a trailing newline."""
    return b"".join(json.dumps(o, separators=(",", ":")).encode() + b"\n" for o in objects)


def read_objects(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSONL file, parsed."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def names_in(directory: Path) -> list[str]:
    """Sorted file names in a directory."""
    return sorted(p.name for p in directory.iterdir())
