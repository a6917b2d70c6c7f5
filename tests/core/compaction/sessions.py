"""Generated pi v3 sessions that exercise compaction's edge cases.

Astral characters near the 2000-character tool-result cut, float and integer-like keys in
tool arguments, images, bash executions (also excluded ones), custom messages, branch
summaries and compactions with details, error/aborted replies, settings and label entries,
and branches. ``make_oracle.mjs`` runs pi's own functions on the files this writes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_WORDS = ["alpha", "beta", "gamma", "delta", "file", "tree", "leaf", "😀", "测试", "naïve"]
_WORDS += ["path", "edit", "read"]
_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="  # noqa: E501


def _iso(ms: int) -> str:
    seconds, milli = divmod(ms, 1000)
    minutes, sec = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"2026-01-01T{hours % 24:02d}:{minute:02d}:{sec:02d}.{milli:03d}Z"


def _words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(count))


def _usage(rng: random.Random) -> dict[str, Any]:
    inp, out = rng.randint(10, 30000), rng.randint(0, 2000)
    total = 0 if rng.random() < 0.2 else inp + out
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": inp,
        "output": out,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": cost,
    }


class SessionBuilder:
    """Appends entries with sequential ids; ``parent`` can point anywhere (branches)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entries: list[dict[str, Any]] = []
        self.leaf: str | None = None
        self.clock = 0
        self.pending_calls: list[tuple[str, str]] = []

    def add(self, kind: str, **fields: Any) -> str:
        self.clock += self.rng.randint(100, 4000)
        entry_id = f"{len(self.entries) + 1:08x}"
        entry = {"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": _iso(self.clock)}
        entry.update(fields)
        self.entries.append(entry)
        self.leaf = entry_id
        return entry_id

    def message(self, message: dict[str, Any]) -> str:
        message.setdefault("timestamp", 1767225600000 + self.clock)
        return self.add("message", message=message)

    def user(self) -> str:
        rng = self.rng
        text = _words(rng, rng.randint(1, 30))
        content: Any = text if rng.random() < 0.3 else [{"type": "text", "text": text}]
        if isinstance(content, list) and rng.random() < 0.2:
            content.append({"type": "image", "data": _PNG, "mimeType": "image/png"})
        return self.message({"role": "user", "content": content})

    def _arguments(self, name: str) -> dict[str, Any]:
        rng = self.rng
        path = rng.choice(["src/a.py", "src/b.py", "docs/ü.md", "😀/x.ts", "B.txt", "a.txt", ""])
        if name == "read":
            args: dict[str, Any] = {"path": path}
            if rng.random() < 0.4:
                args["offset"] = rng.choice([10, 2.5, 1e-7, 1e21, 100.0])
            return args
        if name == "write":
            return {"path": path, "content": _words(rng, 5)}
        if name == "edit":
            return {"path": path, "oldText": "x", "newText": _words(rng, 3)}
        if name == "bash":
            return {"command": "ls -la", "timeout": 60}
        return {"pattern": "foo", "10": True, "2": None, "b": [1, 2.0, {"x": "😀"}]}

    def assistant(self, calls: int) -> str:
        rng = self.rng
        content: list[dict[str, Any]] = []
        if rng.random() < 0.6:
            content.append({"type": "thinking", "thinking": _words(rng, rng.randint(1, 40))})
        if rng.random() < 0.8:
            content.append({"type": "text", "text": _words(rng, rng.randint(1, 60))})
        for _ in range(calls):
            name = rng.choice(["read", "write", "edit", "bash", "grep"])
            call_id = f"call_{rng.getrandbits(32):08x}"
            arguments = self._arguments(name)
            call = {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
            content.append(call)
            self.pending_calls.append((call_id, name))
        endings = ["stop", "stop", "stop", "error", "aborted", "length"]
        stop = "toolUse" if calls else rng.choice(endings)
        message = {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": _usage(rng),
            "stopReason": stop,
        }
        if stop == "error":
            message["errorMessage"] = "overloaded"
        return self.message(message)

    def tool_results(self) -> None:
        rng = self.rng
        calls, self.pending_calls = self.pending_calls, []
        for call_id, name in calls:
            size = rng.choice([5, 100, 1998, 1999, 2000, 2001, 5000])
            text = "x" * size + "😀" + "tail"  # the 2000-unit cut may split the emoji
            content: list[dict[str, Any]] = [{"type": "text", "text": text}]
            if rng.random() < 0.15:
                content.append({"type": "image", "data": _PNG, "mimeType": "image/png"})
            self.message(
                {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": name,
                    "content": content,
                    "isError": rng.random() < 0.1,
                }
            )

    def extra(self) -> None:
        """A random non-turn entry."""
        rng = self.rng
        choice = rng.randrange(7)
        if choice == 0:
            self.add("thinking_level_change", thinkingLevel=rng.choice(["off", "high"]))
        elif choice == 1:
            self.add("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
        elif choice == 2:
            exclude = rng.random() < 0.3
            message: dict[str, Any] = {
                "role": "bashExecution",
                "command": "echo hi",
                "output": _words(rng, 10),
                "exitCode": rng.choice([0, 1]),
                "cancelled": False,
                "truncated": False,
            }
            if exclude:
                message["excludeFromContext"] = True
            self.message(message)
        elif choice == 3:
            content: Any = _words(rng, 8)
            if rng.random() < 0.5:
                content = [{"type": "text", "text": content}]
            self.add("custom_message", customType="note", content=content, display=True)
        elif choice == 4:
            details = {"readFiles": ["r1.md", "src/a.py"], "modifiedFiles": ["m1.ts"]}
            self.add(
                "branch_summary",
                fromId=self.leaf or "root",
                summary=_words(rng, 30),
                details=details,
            )
        elif choice == 5 and self.leaf is not None:
            self.add("label", targetId=self.leaf, label="mark")
        else:
            self.add("custom", customType="state", data={"n": 1})

    def compaction(self) -> None:
        rng = self.rng
        path = self.path()
        kept = path[max(0, len(path) - rng.randint(1, 12))]
        details = {"readFiles": ["old-read.md"], "modifiedFiles": ["old-mod.md", "src/a.py"]}
        fields: dict[str, Any] = {
            "summary": _words(rng, 50),
            "firstKeptEntryId": kept,
            "tokensBefore": 12345,
            "details": details,
        }
        if rng.random() < 0.3:
            fields["fromHook"] = True
        self.add("compaction", **fields)

    def path(self) -> list[str]:
        by_id = {e["id"]: e for e in self.entries}
        out: list[str] = []
        current = self.leaf
        while current is not None:
            out.append(current)
            current = by_id[current]["parentId"]
        return out[::-1]


def generate(seed: int, turns: int = 30) -> list[dict[str, Any]]:
    """Entries (header first) of a deterministic session for ``seed``."""
    rng = random.Random(seed)
    b = SessionBuilder(rng)
    for turn in range(turns):
        b.user()
        for _ in range(rng.randint(0, 3)):
            b.assistant(calls=rng.randint(1, 3))
            b.tool_results()
        b.assistant(calls=0)
        if rng.random() < 0.4:
            b.extra()
        if rng.random() < 0.06 and turn > 3:
            b.compaction()
        if rng.random() < 0.08 and len(b.entries) > 10:
            b.leaf = rng.choice(b.path()[:-1])  # branch: continue from an earlier entry
    header = {"type": "session", "version": 3, "id": f"00000000-0000-4000-8000-{seed:012d}",
              "timestamp": _iso(0), "cwd": "/work"}  # fmt: skip
    return [header, *b.entries]


def write(path: Path, entries: list[dict[str, Any]]) -> Path:
    """Write entries as JSONL."""
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
    path.write_text(text, encoding="utf-8")
    return path
