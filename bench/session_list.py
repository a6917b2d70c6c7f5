"""Benchmark: ``pitui session ls`` over 3,000 session files (target < 0.5 s warm).

Usage: ``python bench/session_list.py [--runs N] [--files N] [--pi DIR]``

Generates (deterministic seed, cached in the temp dir) 3,000 sessions of 10–600 entries
spread over 30 project directories, then times, as whole processes with a warm page
cache and a warm listing cache: ``pitui session ls --session-dir DIR`` (one project
holding every file) and ``pitui session ls --all`` (all projects); then with
``--no-cache`` (every file read and scanned). With ``--pi DIR`` it also times pi's own
``SessionManager.list`` on the same directory.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_session import generate

ROOT = Path(tempfile.gettempdir()) / "pitui-bench" / "list"
_SIZES = [10, 10, 30, 30, 60, 60, 120, 250, 600]


def _populate(files: int) -> tuple[Path, Path]:
    """(pitui home with 30 projects, one flat directory with every file)."""
    home, flat = ROOT / f"home-{files}", ROOT / f"flat-{files}"
    if flat.exists() and len(list(flat.iterdir())) == files:
        return home, flat
    shutil.rmtree(ROOT, ignore_errors=True)
    flat.mkdir(parents=True)
    rng = random.Random(7)
    for number in range(files):
        name = f"2026-01-{1 + number % 28:02d}T00-00-00-{number:03d}Z_{number:08d}.jsonl"
        generate(flat / name, rng.choice(_SIZES), seed=number + 10, mode="auto")
        project = home / "sessions" / f"--home-user-project{number % 30}--"
        project.mkdir(parents=True, exist_ok=True)
        os.link(flat / name, project / name)
    return home, flat


def _time(command: list[str], env: dict[str, str], runs: int) -> float:
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)  # warm up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _pi_list(pi_dir: Path, directory: Path, runs: int) -> float:
    script = (
        "const {join} = await import('node:path');"
        "const {pathToFileURL} = await import('node:url');"
        "const m = await import(pathToFileURL(join(process.env.PI_DIR,"
        "'node_modules/@mariozechner/pi-coding-agent/dist/index.js')).href);"
        "const s = await m.SessionManager.list('/x', process.argv[1]);"
        "console.log(s.length);"
    )
    env = {**os.environ, "PI_DIR": str(pi_dir)}
    return _time(["node", "--input-type=module", "-e", script, str(directory)], env, runs)


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--pi", type=Path, help="directory with pi installed (node_modules)")
    args = parser.parse_args()
    home, flat = _populate(args.files)
    total = sum(p.stat().st_size for p in flat.iterdir()) / 1e6
    env = {**os.environ, "PITUI_HOME": str(home)}
    pitui = [sys.executable, "-m", "pitui", "session", "ls"]
    one_dir = _time([*pitui, "--session-dir", str(flat)], env, args.runs)
    all_dirs = _time([*pitui, "--all"], env, args.runs)
    uncached = _time([*pitui, "--session-dir", str(flat), "--no-cache"], env, args.runs)
    print(f"{args.files} session files, {total:.0f} MB")
    print(f"pitui session ls --session-dir (one directory): {one_dir:.3f} s median wall")
    print(f"pitui session ls --all (30 projects): {all_dirs:.3f} s median wall")
    print(f"pitui session ls --no-cache (every file read, page cache warm): {uncached:.3f} s")
    if args.pi is not None:
        print(
            f"pi SessionManager.list (same directory): {_pi_list(args.pi, flat, args.runs):.3f} s"
        )
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
