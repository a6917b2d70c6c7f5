"""Benchmark: ``prepare_compaction`` on a 100k-entry session (one branch, tool calls).

Prints the time of path building + cut point + file operations + tokensBefore (the work
``/compact`` does before it calls the model): median and best of CPU and wall time (CPU is
the steadier figure on a busy machine), and the first call's. Target: median ≤ 100 ms.
Run: ``python bench/compaction_prep.py [ENTRIES]``.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pitui.core.compaction.cut import path_view, prepare_compaction
from pitui.core.session.store import SessionStore
from pitui.core.settings import CompactionSettings

_WORDS = [
    "session",
    "tree",
    "leaf",
    "branch",
    "token",
    "model",
    "tool",
    "result",
    "read",
    "write",
    "edit",
    "bash",
    "cache",
]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _assistant(rng: random.Random, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    usage = {"input": 1000, "output": 200, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1200}
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": usage,
        "stopReason": stop,
        "timestamp": 0,
    }


def _messages(rng: random.Random) -> list[dict[str, Any]]:
    """One turn: a prompt, tool calls with their results, a final reply."""
    turn: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": _text(rng, 20)}], "timestamp": 0}
    ]
    for _ in range(rng.randint(1, 4)):
        name = rng.choice(["read", "edit", "write", "bash"])
        call = {
            "type": "toolCall",
            "id": f"toolu_{rng.getrandbits(48):012x}",
            "name": name,
            "arguments": {"path": f"src/{rng.choice(_WORDS)}.py"}
            if name != "bash"
            else {"command": "ls"},
        }
        thinking = {"type": "thinking", "thinking": _text(rng, 15)}
        turn.append(_assistant(rng, [thinking, call], "toolUse"))
        result = {"type": "text", "text": _text(rng, 60)}
        turn.append(
            {
                "role": "toolResult",
                "toolCallId": call["id"],
                "toolName": name,
                "content": [result],
                "isError": False,
                "timestamp": 0,
            }
        )
    turn.append(_assistant(rng, [{"type": "text", "text": _text(rng, 40)}], "stop"))
    return turn


def generate(path: Path, entries: int) -> None:
    """Write a one-branch session of ``entries`` entries."""
    rng = random.Random(7)
    header = {"type": "session", "version": 3, "id": "bench", "timestamp": "", "cwd": "/w"}
    lines = [json.dumps(header, separators=(",", ":"))]
    parent: str | None = None
    count = 0
    while count < entries:
        for message in _messages(rng):
            count += 1
            entry_id = f"{count:08x}"
            entry = {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message,
            }
            lines.append(json.dumps(entry, separators=(",", ":")))  # as pi writes
            parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _figures(label: str, times: list[float]) -> str:
    return f"{label} median {statistics.median(times):.1f} best {min(times):.1f}"


async def main(entries: int, runs: int = 11) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "bench.jsonl"
        generate(file, entries)
        store = await SessionStore.open(file, read_only=True)
        settings = CompactionSettings()
        wall: list[float] = []
        cpu: list[float] = []
        prep = None
        for _ in range(runs):  # nothing is cached between runs: each is a first call
            start, start_cpu = time.perf_counter(), time.process_time()
            prep = prepare_compaction(path_view(store.table, store.get_leaf_id()), settings)
            cpu.append((time.process_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
        assert prep is not None
        ops = prep.file_ops
        print(
            f"prepare_compaction on {store.entry_count()} entries, {runs} runs (ms): "
            f"{_figures('CPU', cpu)}, {_figures('wall', wall)}, "
            f"first call {cpu[0]:.1f} CPU / {wall[0]:.1f} wall; "
            f"{len(prep.summarize_indices)} messages to summarise, "
            f"{len(ops.read) + len(ops.edited) + len(ops.written)} file paths"
        )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000))
