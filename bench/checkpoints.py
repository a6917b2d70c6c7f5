"""Benchmark: checkpoints of a large project, and what they add to a print-mode turn.

A generated project: 10,000 source-like files (~200 MB) and a ``node_modules`` folder the
project's ``.gitignore`` names (~2 GB apparent, made of sparse files, so it costs no disk
and little time). Figures, with targets:

* first checkpoint (empty store: every file hashed)            ≤ 2 s
* a checkpoint after 10 files changed (median)                  ≤ 100 ms
* a checkpoint with nothing changed (median)                    ≤ 50 ms
* restore of 100 files (pre-restore snapshot included, median)  ≤ 300 ms
* the longest event-loop stall while any of it runs (a ticker every 5 ms): the work is in
  git subprocesses and threads, so keystrokes would keep echoing
* ``pitui -p`` turns of ``bench/startup.py``'s scenario, with checkpoints on vs
  ``--no-checkpoints``, alternating A B A B: the median of the pairs' ratios (wall; CPU,
  git's included, beside it), each                                        ≤ 1.10
  - whose tool writes a file (so a checkpoint is taken before it and at the end)
  - as it is, read-then-answer (the issue's own scenario: no file changes, no checkpoint)

Checkpoints are recorded through :class:`SessionFiles` into an in-memory session, as a
real turn records them. Everything lives in one temp folder, removed at the end.

Run: ``python bench/checkpoints.py [--runs 15] [--files 10000] [--print-runs 10]
[--only engine|print]``.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(REPO))

from loopback_model import (  # noqa: E402
    MODEL,
    PROMPT,
    PROVIDER,
    READ_CALL,
    LoopbackModel,
    write_agent_dirs,
)
from startup import EXPECTED, Sample, base_env, pitui_command, time_once  # noqa: E402

from pitui.core.checkpoints.engine import CheckpointEngine  # noqa: E402
from pitui.core.checkpoints.session_files import SessionFiles  # noqa: E402
from pitui.core.session.store import SessionStore  # noqa: E402

_T = TypeVar("_T")
TARGETS_MS = {"first": 2000.0, "changed10": 100.0, "unchanged": 50.0, "restore100": 300.0}
PRINT_TARGET = 1.10
_WORDS = ["def", "class", "return", "import", "self", "value", "index", "result", "async"]


def _corpus(rng: random.Random) -> bytes:
    lines = []
    for number in range(4000):
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 12)))
        lines.append(f"    {words}  # line {number} {rng.getrandbits(32):08x}\n")
    return "".join(lines).encode()


def generate(root: Path, files: int, rng: random.Random) -> list[Path]:
    """The project: ``files`` text files (~20 KB each) and a sparse ignored node_modules."""
    corpus = _corpus(rng)
    paths: list[Path] = []
    for index in range(files):
        path = root / f"pkg{index // 1000:02d}" / f"mod{(index // 20) % 50:02d}" / f"f{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        start = rng.randrange(0, len(corpus) - 41_000)
        path.write_bytes(corpus[start : start + rng.randint(1_000, 40_000)])
        paths.append(path)
    (root / ".gitignore").write_text("node_modules/\n__pycache__/\n")
    modules = root / "node_modules"
    for index in range(2000):
        package = modules / f"dep{index // 20:03d}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"index{index % 20}.js").write_text("module.exports = 1;\n")
    for index in range(10):  # 10 × 200 MB, sparse: 2 GB that occupy nothing
        with open(modules / f"blob{index}.bin", "wb") as handle:
            handle.truncate(200 * 1024 * 1024)
    return paths


CPU: dict[str, list[float]] = {}
"""CPU ms (this process + its git children) of each sample, by figure: on a loaded
shared machine wall time says more about the neighbours than about the code."""


def _cpu_ms() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.process_time() + children.ru_utime + children.ru_stime) * 1000


async def _timed(work: Callable[[], Awaitable[_T]], figure: str) -> tuple[float, _T]:
    start, cpu = time.perf_counter(), _cpu_ms()
    result = await work()
    CPU.setdefault(figure, []).append(_cpu_ms() - cpu)
    return (time.perf_counter() - start) * 1000, result


class StallMeter:
    """The longest gap between ticks of a 5 ms ticker on the event loop."""

    def __init__(self) -> None:
        self.worst_ms = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.worst_ms = max(self.worst_ms, (now - last) * 1000 - 5)
            last = now

    def __enter__(self) -> StallMeter:
        self._task = asyncio.ensure_future(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()


def _touch(paths: list[Path], rng: random.Random, count: int) -> None:
    for path in rng.sample(paths, count):
        with open(path, "ab") as handle:
            handle.write(f"# edited {rng.getrandbits(64):016x}\n".encode())


async def bench_engine(project: Path, paths: list[Path], runs: int) -> dict[str, float]:
    """The engine figures (ms), printed as they come."""
    rng = random.Random(7)
    store = SessionStore.in_memory(project)
    files = SessionFiles(CheckpointEngine(project), store)
    figures: dict[str, float] = {}
    with StallMeter() as stall:
        figures["first"], _ = await _timed(lambda: files.record("manual"), "first")
        changed, unchanged, restores = [], [], []
        for _ in range(runs):
            _touch(paths, rng, 10)
            changed.append((await _timed(lambda: files.record("manual"), "changed10"))[0])
        for _ in range(runs):
            unchanged.append((await _timed(lambda: files.record("manual"), "unchanged"))[0])
        base = files.latest()
        assert base is not None
        for _ in range(max(3, runs // 3)):
            _touch(paths, rng, 100)
            ms, result = await _timed(lambda: files.restore(base), "restore100")
            assert len(result.outcome.written) == 100, result.outcome
            restores.append(ms)
        figures["changed10"] = statistics.median(changed)
        figures["unchanged"] = statistics.median(unchanged)
        figures["restore100"] = statistics.median(restores)
    figures["stall"] = stall.worst_ms
    return figures


PRINT_SCENARIOS: dict[str, tuple[str, dict[str, str]]] = {
    "write turn": ("write", {"path": "notes.txt", "content": "The build is green.\n"}),
    "read-then-answer": READ_CALL,
}
"""``bench/startup.py``'s print turn with a tool that writes a file (a checkpoint before
it and at the run's end) and as it is (a read: no checkpoint is taken)."""


def bench_print(scenario: str, runs: int) -> tuple[float, float]:
    """A ``pitui -p`` turn of ``scenario`` with checkpoints on and ``--no-checkpoints``,
    A B A B …: the medians of the pairs' ratios (on / off) of wall and CPU time."""
    argv, extra = pitui_command()
    with tempfile.TemporaryDirectory() as tmp, LoopbackModel(PRINT_SCENARIOS[scenario]) as server:
        dirs = write_agent_dirs(Path(tmp), server.base_url)
        env = {**base_env(), **extra, "HOME": str(dirs["home"])}
        env["PITUI_HOME"] = str(dirs["pitui-home"])
        flags = ["-p", "--model", f"{PROVIDER}/{MODEL}", PROMPT]
        variants = {"on": [*argv, *flags], "off": [*argv, "--no-checkpoints", *flags]}
        samples: dict[str, list[Sample]] = {"on": [], "off": []}
        for command in variants.values():  # warm-up (and the store's creation)
            time_once(command, env, dirs["project"])
        for _ in range(runs):
            for name, command in variants.items():
                sample, out = time_once(command, env, dirs["project"])
                if EXPECTED not in out:
                    raise SystemExit(f"checkpoints: unexpected answer {out!r}")
                samples[name].append(sample)
    for name, series in samples.items():
        wall = statistics.median(s.wall_ms for s in series)
        cpu = statistics.median(s.cpu_ms for s in series)
        print(
            f"pitui -p ({scenario}), checkpoints {name:<3}: {wall:7.1f} ms wall, {cpu:6.1f} ms CPU"
        )
    pairs = list(zip(samples["on"], samples["off"], strict=True))
    wall_ratio = statistics.median(a.wall_ms / b.wall_ms for a, b in pairs)
    cpu_ratio = statistics.median(a.cpu_ms / b.cpu_ms for a, b in pairs)
    return wall_ratio, cpu_ratio


ENGINE_LABELS = {
    "first": "first checkpoint",
    "changed10": "checkpoint, 10 files changed (median)",
    "unchanged": "checkpoint, nothing changed (median)",
    "restore100": "restore of 100 files (median)",
}


def run_engine(files: int, runs: int) -> bool:
    """The engine figures on a generated project; True when all are on target."""
    root = Path(tempfile.mkdtemp(prefix="pitui-bench-checkpoints-"))
    os.environ["PITUI_HOME"] = str(root / "pitui-home")
    ok = True
    try:
        project = root / "project"
        start = time.perf_counter()
        paths = generate(project, files, random.Random(1))
        size = sum(p.stat().st_size for p in paths) / 1e6
        print(
            f"project: {len(paths)} files, {size:.0f} MB (+ 2 GB sparse, ignored)"
            f" generated in {time.perf_counter() - start:.1f} s"
        )
        figures = asyncio.run(bench_engine(project, paths, runs))
        for key, label in ENGINE_LABELS.items():
            met = figures[key] <= TARGETS_MS[key]
            ok = ok and met
            target = TARGETS_MS[key]
            print(
                f"{label:<40} {figures[key]:8.1f} ms  (target ≤ {target:.0f}: "
                f"{'met' if met else 'MISSED'}; CPU {statistics.median(CPU[key]):.0f} ms)"
            )
        print(f"{'longest event-loop stall':<40} {figures['stall']:8.1f} ms")
        store = root / "pitui-home" / "projects"
        used = sum(p.stat().st_size for p in store.rglob("*") if p.is_file()) / 1e6
        print(f"{'store size (loose objects)':<40} {used:8.1f} MB")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return ok


def run_print(runs: int) -> bool:
    """The print-turn rows; True when both are on target."""
    compileall.compile_dir(str(REPO / "pitui"), quiet=1)  # as a real install has it
    ok = True
    for scenario in PRINT_SCENARIOS:
        ratio, cpu_ratio = bench_print(scenario, runs)
        met = ratio <= PRINT_TARGET
        ok = ok and met
        print(
            f"{scenario + ' on/off, median of pairs:':<40} {ratio:8.3f}   (target ≤ "
            f"{PRINT_TARGET:.2f}: {'met' if met else 'MISSED'}; CPU {cpu_ratio:.3f})"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="samples of each engine figure")
    parser.add_argument("--files", type=int, default=10_000, help="files in the project")
    parser.add_argument(
        "--print-runs", type=int, default=10, help="pairs of print turns of each scenario"
    )
    parser.add_argument("--only", choices=["engine", "print"], help="one of the two parts")
    options = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ok = True
    if options.only in (None, "engine"):
        ok = run_engine(options.files, options.runs) and ok
    if options.only in (None, "print") and options.print_runs:
        ok = run_print(options.print_runs) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
