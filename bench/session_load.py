"""Benchmark: open a 100k-entry (~65 MB) session, build its context, convert it for the LLM.

Usage: ``python bench/session_load.py [--runs N] [--mode auto|few|both] [--pi DIR]``

Prints, per generated file (deterministic seed):
- in-process: open + ``build_context`` + ``convert_to_llm`` (median of N runs, wall and
  CPU), and peak RSS of a fresh process doing it once;
- whole process: ``pitui session context FILE --json > /dev/null`` (median wall);
- with ``--pi DIR`` (a directory where pi 0.73 or 1.6 was npm-installed, see ``pi_cli.py``):
  pi's own SessionManager + buildSessionContext + convertToLlm on the same file, and pi
  as a whole process printing the context as JSON.
Targets (issue 5): faster than pi's 1.07 s in-process and 2.25 s whole-process.
The machine may be shared: CPU times are printed beside wall times.

``--instructions [--tree DIR]`` instead counts the instructions of the whole
``session context --json`` process under ``valgrind --tool=callgrind`` (load-independent,
±2 %), with its user+system CPU time and peak RSS (GNU time), for this checkout and, with
``--tree``, another one (``git archive <commit> | tar -x -C DIR``), as A/B; both output
the same bytes or it says so. ``PYTHONHASHSEED=0``, no address randomisation, a fresh
``PITUI_HOME`` and the same working directory for every run.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_session import generate
from pi_cli import pi_library

CACHE = Path(tempfile.gettempdir()) / "pitui-bench"
PI_SCRIPT = Path(__file__).with_name("pi_session_load.mjs")


def _file(mode: str) -> Path:
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"session-100k-{mode}.jsonl"
    if not path.exists():
        generate(path, 100_000, seed=1, mode=mode)
    return path


def _once(path: Path) -> dict[str, float]:
    from pitui.core.messages import convert_to_llm
    from pitui.core.session.store import SessionStore

    wall, cpu = time.perf_counter(), time.process_time()
    store = asyncio.run(SessionStore.open(path, read_only=True))
    opened = time.perf_counter()
    context = store.build_context()
    built = time.perf_counter()
    llm = convert_to_llm(context.messages)
    done, cpu_done = time.perf_counter(), time.process_time()
    return {
        "open": opened - wall,
        "build": built - opened,
        "convert": done - built,
        "total": done - wall,
        "cpu": cpu_done - cpu,
        "messages": len(llm),
    }


def in_process(path: Path, runs: int) -> dict[str, float]:
    """Median figures over ``runs`` runs in this process."""
    results = [_once(path) for _ in range(runs)]
    return {k: statistics.median(r[k] for r in results) for k in results[0]}


def peak_rss_mb(path: Path) -> tuple[float, float]:
    """(RSS after imports, peak RSS) of a fresh process that opens and builds once."""
    # VmHWM (not ru_maxrss, which a child inherits from its parent across fork).
    code = (
        "import sys, json, pathlib; sys.path.insert(0, sys.argv[2]);"
        "hwm = lambda: int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))"
        ".split()[1]);"
        "import pitui.core.session.store, pitui.core.messages; base = hwm();"
        "from session_load import _once; _once(pathlib.Path(sys.argv[1]));"
        "print(json.dumps([base, hwm()]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), str(Path(__file__).parent)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    base, peak = json.loads(out)
    return base / 1024, peak / 1024


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def whole_process(
    command: list[str], runs: int, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """(median wall, median CPU) of a command with stdout to /dev/null."""
    walls, cpus = [], []
    for _ in range(runs):
        start, cpu = time.perf_counter(), _children_cpu()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def pi_figures(pi_dir: Path, path: Path, runs: int) -> dict[str, float]:
    """pi's own code on the same file (node)."""
    node, library = pi_library(pi_dir)
    env = {**os.environ, "PI_ENTRY": str(library)}
    out = subprocess.run(
        [node, str(PI_SCRIPT), "inprocess", str(path), str(runs)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    figures: dict[str, float] = json.loads(out)
    command = [node, str(PI_SCRIPT), "print", str(path)]
    figures["whole_process"], figures["whole_cpu"] = whole_process(command, runs, env)
    return figures


def report(mode: str, runs: int, pi_dir: Path | None) -> None:
    """Run everything for one generated file and print the figures."""
    path = _file(mode)
    size = path.stat().st_size / 1e6
    figures = in_process(path, runs)
    base, peak = peak_rss_mb(path)
    pitui = [sys.executable, "-m", "pitui", "session", "context", str(path), "--json"]
    whole, whole_cpu = whole_process(pitui, runs)
    print(f"\n== {path.name}: {size:.1f} MB, context {int(figures['messages'])} messages ==")
    print(
        f"pitui in-process: {figures['total']:.3f} s median wall "
        f"(open {figures['open']:.3f} + build {figures['build']:.3f} + "
        f"convert {figures['convert']:.3f}); CPU {figures['cpu']:.3f} s"
    )
    print(f"pitui peak RSS: {peak:.0f} MB (after imports {base:.0f} MB)")
    print(
        f"pitui whole process (session context --json): {whole:.3f} s median wall, "
        f"CPU {whole_cpu:.3f} s"
    )
    if pi_dir is not None:
        pi = pi_figures(pi_dir, path, runs)
        print(
            f"pi in-process: {pi['total']:.3f} s (open {pi['open']:.3f} + build "
            f"{pi['build']:.3f} + convert {pi['convert']:.3f}); CPU {pi['cpu']:.3f} s"
        )
        print(
            f"pi whole process (print context JSON): {pi['whole_process']:.3f} s median wall, "
            f"CPU {pi['whole_cpu']:.3f} s"
        )
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def _environment(tree: Path, home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), PYTHONHASHSEED="0", PITUI_HOME=home, HOME=home)
    return env


def _counted(tree: Path, path: Path) -> tuple[int, float, float, str]:
    """(instructions, CPU s, peak RSS MB, output digest) of ``session context --json``
    on ``path`` with the pitui of ``tree``."""
    command = [sys.executable, "-m", "pitui", "session", "context", str(path), "--json"]
    with tempfile.TemporaryDirectory() as home:
        env = _environment(tree, home)
        out = Path(home) / "callgrind.out"
        valgrind = ["setarch", "-R", "valgrind", "--tool=callgrind", "--dump-instr=no"]
        subprocess.run(
            [*valgrind, f"--callgrind-out-file={out}", *command],
            env=env, cwd=tempfile.gettempdir(), check=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        found = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
        timed = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S %M", *command],
            env=env, cwd=tempfile.gettempdir(), check=True, capture_output=True,
        )  # fmt: skip
    user, system, peak = timed.stderr.decode().split()[-3:]
    digest = hashlib.sha256(timed.stdout).hexdigest()[:12]
    return int(found.split()[1]), float(user) + float(system), int(peak) / 1024, digest


def instructions(mode: str, other: Path | None) -> None:
    """Print the ``--instructions`` figures of one generated file."""
    path = _file(mode)
    trees = {"this": Path(__file__).resolve().parents[1]}
    if other is not None:
        trees["tree"] = other.resolve()
    figures = {}
    for name, tree in trees.items():
        compileall.compile_dir(str(tree / "pitui"), quiet=1)
        figures[name] = _counted(tree, path)
        count, cpu, peak, digest = figures[name]
        print(
            f"{path.name} {name:>4}: {count / 1e9:.3f} G instructions, CPU {cpu:.2f} s, "
            f"peak {peak:.0f} MB, output {digest}"
        )
    if other is not None:
        ratio = figures["this"][0] / figures["tree"][0]
        same = "same output" if figures["this"][3] == figures["tree"][3] else "OUTPUT DIFFERS"
        print(f"{path.name}: this / tree = {ratio:.3f} ({same})")


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mode", choices=["auto", "few", "both"], default="both")
    parser.add_argument("--pi", type=Path, help="directory with pi installed (node_modules)")
    parser.add_argument("--instructions", action="store_true", help="callgrind counts, A/B")
    parser.add_argument("--tree", type=Path, help="with --instructions: the other checkout")
    args = parser.parse_args()
    for mode in ("auto", "few") if args.mode == "both" else (args.mode,):
        if args.instructions:
            instructions(mode, args.tree)
        else:
            report(mode, args.runs, args.pi)


if __name__ == "__main__":
    main()
