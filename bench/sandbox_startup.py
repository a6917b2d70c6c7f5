"""Benchmark: what the workspace sandbox adds to every bash call.

Times ``bash -c true`` as the bash tool spawns it: unconfined, through the Landlock
launcher (``python -S -I pitui/core/sandbox_exec.py``, with its mount namespace where the
machine allows one) and through bubblewrap, and
prints the median and best wall time of each in milliseconds, the median CPU time
(user + system of the processes spawned: it does not depend on how loaded the machine
is, so compare that between versions), the launcher's extra cost over the bare command,
and the best time pitui takes to build the command line (``Sandbox.wrap``: the paths to
keep read-only and the sockets to cover). Backends this machine lacks are skipped.

Run: ``python bench/sandbox_startup.py [--runs 40]``. Target: Landlock adds < 25 ms
(a model call takes seconds; the launcher is one interpreter start without site).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pitui.core.sandbox import (
    Sandbox,
    SandboxedCommand,
    SandboxKind,
    build_sandbox,
    bwrap_works,
    landlock_abi,
    namespace_problem,
    writable_places,
)
from pitui.core.settings import SandboxSettings

TARGET_EXTRA_MS = 25.0
COMMAND = ["/bin/bash", "-c", "true"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_runs(make: Callable[[], SandboxedCommand], runs: int) -> tuple[list[float], list[float]]:
    """(wall, CPU) milliseconds from spawn to exit of ``make()``'s command, ``runs`` times."""
    wall, cpu = [], []
    for _ in range(runs):
        command = make()
        before, start = _children_cpu(), time.perf_counter()
        subprocess.run(
            command.argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=command.pass_fds,
        )  # fmt: skip
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((_children_cpu() - before) * 1000)
        command.close()
    return wall, cpu


def time_wrap(sandbox: Sandbox) -> float:
    """Milliseconds pitui spends building the command line (finding what to protect)."""
    start = time.perf_counter()
    sandbox.wrap(COMMAND).close()
    return (time.perf_counter() - start) * 1000


def main() -> int:
    """Print the figures; exit 1 if the Landlock launcher misses its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    project = Path(tempfile.mkdtemp(prefix="pitui-bench-"))
    places = writable_places(project, SandboxSettings())
    available: dict[SandboxKind, bool] = {
        "landlock": landlock_abi() >= 1,
        "bwrap": asyncio.run(bwrap_works()),
    }
    base, base_cpu = time_runs(lambda: SandboxedCommand(COMMAND), args.runs)
    print(
        f"unconfined   median {statistics.median(base):6.1f} ms   best {min(base):6.1f} ms"
        f"   CPU {statistics.median(base_cpu):5.1f} ms"
    )
    status = 0
    for kind, ok in available.items():
        if not ok:
            print(f"{kind:<12} skipped (not available here)")
            continue
        namespaces = kind == "landlock" and asyncio.run(namespace_problem(places)) is None
        sandbox = build_sandbox(kind, project, SandboxSettings(), namespaces=namespaces)
        timed, cpu = time_runs(functools.partial(sandbox.wrap, COMMAND), args.runs)
        wrap = min(time_wrap(sandbox) for _ in range(args.runs))
        extra = statistics.median(timed) - statistics.median(base)
        print(
            f"{kind:<12} median {statistics.median(timed):6.1f} ms   best {min(timed):6.1f} ms"
            f"   CPU {statistics.median(cpu):5.1f} ms   extra {extra:+6.1f} ms"
            f"   (+ wrap in pitui {wrap:.2f} ms)"
        )
        if kind == "landlock" and extra > TARGET_EXTRA_MS:
            status = 1
    print(f"target: Landlock adds < {TARGET_EXTRA_MS:.0f} ms per call")
    return status


if __name__ == "__main__":
    sys.exit(main())
