"""Crash benchmark: SIGKILL a process appending to a session, many times; reload each file.

Usage: ``python bench/session_kill.py [--runs N]`` (default 500)

The same warm-zygote harness as ``tests/core/session/test_crash.py`` (≥ 50 runs there):
a worker appends entries of 10 B–150 kB, acknowledging each after its fsync; it is killed
after a random delay. Every file must reload, contain every acknowledged entry, have no
bad line, and take a further append cleanly. Prints the counts and the time taken.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
from pitui.core.session.store import SessionStore
from tests.core.session.test_crash import Zygote, _acks, _append_after_crash, torn_line


def _check(path: Path, acked: list[str]) -> str | None:
    if not path.exists():
        return "acknowledged entries but no file" if acked else None
    store = asyncio.run(SessionStore.open(path, read_only=True))
    ids = {e.id for e in store.get_entries()}
    if not set(acked) <= ids:
        return f"lost {len(set(acked) - ids)} acknowledged entries"
    if store.report.bad_lines:
        return f"bad lines {store.report.bad_lines}"
    asyncio.run(_append_after_crash(path, len(ids), torn_line(path, store)))
    return None


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(99)
    zygote = Zygote()
    failures: list[str] = []
    acked_total = torn = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        for run in range(args.runs):
            path = Path(directory) / f"run{run}.jsonl"
            pid = zygote.start("append", path)
            time.sleep(rng.uniform(0.005, 0.08))
            os.kill(pid, signal.SIGKILL)
            zygote.wait_done()
            data = path.read_bytes() if path.exists() else b""
            torn += bool(data) and not data.endswith(b"\n")
            acked = _acks(path)
            acked_total += len(acked)
            problem = _check(path, acked)
            if problem:
                failures.append(f"run {run}: {problem}")
    zygote.close()
    elapsed = time.perf_counter() - start
    print(
        f"{args.runs} SIGKILLs in {elapsed:.1f} s: {acked_total} acknowledged entries, "
        f"{torn} torn tails, {len(failures)} failures"
    )
    for failure in failures[:10]:
        print(" ", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
