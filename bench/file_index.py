"""The composer's ``@`` finder: search time over a 10,000-file project after indexing.

Prints the median and best of several searches per query (milliseconds); the target
is < 50 ms for every query on a 10,000-file project. Usage: ``python bench/file_index.py``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from pitui.core.attachments.file_index import ProjectFileIndex, _with_folders

WORDS = [
    "src",
    "lib",
    "core",
    "util",
    "test",
    "docs",
    "api",
    "model",
    "view",
    "widget",
    "screen",
    "session",
    "store",
    "agent",
    "tools",
    "find",
    "read",
    "write",
    "edit",
    "bash",
    "image",
    "theme",
    "skill",
    "prompt",
]
QUERIES = ["a", "e", "sr", "rea", "REA", "src/co", "skpr", "widgetscreen", "zzz"]


def synthetic_paths(count: int = 10_000, seed: int = 1) -> list[str]:
    """``count`` file paths 1-5 folders deep, with shared folder names as real trees have."""
    rng = random.Random(seed)
    files = []
    for i in range(count):
        folders = "/".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
        files.append(f"{folders}/{rng.choice(WORDS)}_{i}.py")
    return sorted(files)


def main() -> None:
    index = ProjectFileIndex(Path("."))
    index.set_paths(_with_folders(synthetic_paths()))
    print(f"{len(index.paths)} entries (10,000 files and their folders)")
    for query in QUERIES:
        times = []
        for _ in range(9):
            start = time.perf_counter()
            index.search(query)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        print(f"{query!r:16} median {times[4]:6.1f} ms   best {times[0]:6.1f} ms")


if __name__ == "__main__":
    main()
