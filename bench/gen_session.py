"""Deterministic generator of large, valid pi v3 session files for the benchmarks.

The file looks like a long coding session: user prompts, assistant replies with thinking,
text and tool calls, tool results with file contents, a few branches (the leaf moves back,
a branch summary starts the new path) and compactions. Two compaction patterns:

- ``auto`` (default): as pi's auto-compaction would do it: whenever the context passes
  150k tokens (chars/4), a compaction keeps the last ~20k tokens. The context at the leaf
  is what a real model would get (under 200k tokens).
- ``few``: three compactions at 25 %, 50 %, 75 % of the file: a stress case whose context
  holds a quarter of the file (~25k messages, ~7M tokens).
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_WORDS = [
    "the",
    "session",
    "file",
    "tree",
    "entry",
    "parent",
    "leaf",
    "branch",
    "summary",
    "compaction",
    "token",
    "model",
    "provider",
    "assistant",
    "user",
    "tool",
    "result",
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "find",
    "context",
    "message",
    "json",
    "line",
    "python",
    "textual",
    "widget",
    "render",
    "stream",
    "event",
    "agent",
    "loop",
    "cache",
    "usage",
    "cost",
    "thinking",
    "level",
]

_BASE = datetime(2026, 1, 1, tzinfo=UTC)


def _iso(ms: int) -> str:
    moment = _BASE + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _code(rng: random.Random, lines: int) -> str:
    return "\n".join(f"    {_text(rng, rng.randint(3, 9))}" for _ in range(lines))


class _Writer:
    """Builds entries with ids, parents and timestamps, writing one JSON line each."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.path: list[str] = []  # ids of the current root→leaf path
        self.since: list[tuple[str, int]] = []  # (id, tokens) of the context since compaction
        self.clock = 0
        self.counter = 0

    def entry(self, kind: str, **fields: Any) -> str:
        self.counter += 1
        self.clock += self.rng.randint(50, 5000)
        entry_id = f"{self.counter:08x}"
        data: dict[str, Any] = {
            "type": kind,
            "id": entry_id,
            "parentId": self.path[-1] if self.path else None,
            "timestamp": _iso(self.clock),
        }
        data.update(fields)
        line = json.dumps(data, separators=(",", ":"))
        self.lines.append(line)
        self.path.append(entry_id)
        self.since.append((entry_id, len(line) // 4))
        return entry_id


def _usage(rng: random.Random) -> dict[str, Any]:
    inp, out = rng.randint(10, 5000), rng.randint(10, 2000)
    cost = {"input": inp * 3e-6, "output": out * 15e-6, "cacheRead": 0, "cacheWrite": 0}
    cost["total"] = cost["input"] + cost["output"]
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": inp + out,
        "cost": cost,
    }


def _turn(w: _Writer) -> None:
    rng = w.rng
    w.entry(
        "message",
        message={
            "role": "user",
            "content": [{"type": "text", "text": _text(rng, rng.randint(5, 40))}],
            "timestamp": w.clock,
        },
    )
    for _ in range(rng.randint(1, 4)):
        call_id = f"toolu_{rng.getrandbits(64):016x}"
        path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py"
        w.entry(
            "message",
            message={
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": _text(rng, rng.randint(5, 30))},
                    {"type": "text", "text": _text(rng, rng.randint(3, 20))},
                    {
                        "type": "toolCall",
                        "id": call_id,
                        "name": "read",
                        "arguments": {"path": path},
                    },
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": _usage(rng),
                "stopReason": "toolUse",
                "timestamp": w.clock,
            },
        )
        w.entry(
            "message",
            message={
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": "read",
                "content": [{"type": "text", "text": _code(rng, rng.randint(2, 20))}],
                "isError": False,
                "timestamp": w.clock,
            },
        )
    w.entry(
        "message",
        message={
            "role": "assistant",
            "content": [{"type": "text", "text": _text(rng, rng.randint(10, 60))}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": _usage(rng),
            "stopReason": "stop",
            "timestamp": w.clock,
        },
    )


def _compact(w: _Writer, keep_tokens: int) -> None:
    kept, total = len(w.since) - 1, 0
    while kept > 0 and total < keep_tokens:
        total += w.since[kept][1]
        kept -= 1
    first_kept = w.since[kept][0]
    w.since = w.since[kept:]
    w.entry(
        "compaction",
        summary=_text(w.rng, 300),
        firstKeptEntryId=first_kept,
        tokensBefore=w.rng.randint(150_000, 190_000),
        details={"readFiles": ["a.py"], "modifiedFiles": []},
        fromHook=False,
    )


def _branch(w: _Writer) -> None:
    """Abandon the last turns: the leaf goes back 60 entries, a summary starts the branch."""
    back = w.path[-min(60, len(w.path))]
    w.path = w.path[: w.path.index(back) + 1]
    on_path = set(w.path)
    w.since = [s for s in w.since if s[0] in on_path]
    w.entry("branch_summary", fromId=back, summary=_text(w.rng, 80))


def generate(
    target: Path, entries: int = 100_000, seed: int = 1, mode: str = "auto", branches: int = 9
) -> Path:
    """Write a valid v3 session of about ``entries`` entries to ``target``, with
    ``branches`` branch points (the leaf goes back and a branch summary starts anew)."""
    rng = random.Random(seed)
    w = _Writer(rng)
    header = {
        "type": "session",
        "version": 3,
        "id": f"00000000-0000-4000-8000-{seed:012d}",
        "timestamp": _iso(0),
        "cwd": "/home/user/project",
    }
    w.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    w.entry("thinking_level_change", thinkingLevel="medium")
    fixed = {entries * k // 4 for k in (1, 2, 3)} if mode == "few" else set()
    due_at = {entries * k // (branches + 1) + 7 for k in range(1, branches + 1)}
    while w.counter < entries:
        _turn(w)
        if mode == "auto" and sum(t for _, t in w.since) > 150_000:
            _compact(w, 20_000)
        for due in [c for c in fixed if c <= w.counter]:
            fixed.discard(due)
            _compact(w, 20_000)
        for due in [b for b in due_at if b <= w.counter]:
            due_at.discard(due)
            _branch(w)
    lines = [json.dumps(header, separators=(",", ":")), *w.lines]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    out = generate(
        Path(args[0] if args else "/tmp/bench-session.jsonl"), mode=(args[1:] or ["auto"])[0]
    )
    print(out, out.stat().st_size)
