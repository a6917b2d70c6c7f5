"""Benchmark: ``pitui session ls`` over 3,000 session files (target < 0.5 s warm), and
the resume picker's first rows in the TUI (target < 300 ms warm).

Usage: ``python bench/session_list.py [--runs N] [--files N] [--pi DIR] [--no-tui]``

Generates (deterministic seed, cached in the temp dir) 3,000 sessions of 10–600 entries
spread over 30 project directories, then times, as whole processes with a warm page
cache and a warm listing cache: ``pitui session ls --session-dir DIR`` (one project
holding every file) and ``pitui session ls --all`` (all projects); then with
``--no-cache`` (every file read and scanned). With ``--pi DIR`` it also times pi's own
``SessionManager.list`` on the same directory.

The picker is timed in a headless Textual app (Pilot), one fresh process per run: from
opening the resume picker on the one directory to its first rows drawn, and to every row
listed. Warm: the listing cache is filled; cold: no listing cache (every file read and
scanned; the page cache is warm either way).
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


async def _picker_once(directory: Path) -> dict[str, float]:
    """Open the resume picker on ``directory`` in a headless app; seconds to its first
    drawn rows and to the end of the listing."""
    from pitui.core.session.listing_ops import picker_scopes
    from pitui.ui.app import PituiApp
    from pitui.ui.theme import discover_themes

    app = PituiApp(themes=discover_themes([]))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        from pitui.ui.screens.resume import ResumeScreen  # opening it loads it, as in use

        screen = ResumeScreen(picker_scopes("/nowhere", directory))
        app.push_screen(screen)
        while not screen.is_mounted or not screen.rows.rows:  # noqa: ASYNC110  (polling is the measure)
            await asyncio.sleep(0.001)
        drawn = asyncio.Event()
        screen.rows.call_after_refresh(drawn.set)  # the frame that shows them
        await drawn.wait()
        first = time.perf_counter() - start
        while screen.lists["current"].loading:  # noqa: ASYNC110
            await asyncio.sleep(0.005)
        listed = time.perf_counter() - start
        rows = len(screen.rows.rows)
    return {"first": first, "all": listed, "rows": rows}


def _time_picker(home: Path, directory: Path, runs: int, *, cold: bool) -> tuple[float, float]:
    """Median seconds to the picker's first rows and to all rows (fresh process each)."""
    root = str(Path(__file__).resolve().parents[1])  # this checkout's pitui
    env = {**os.environ, "PITUI_HOME": str(home), "PYTHONPATH": root}
    cache = home / "cache" / "session-list.json"
    command = [sys.executable, __file__, "--picker-once", str(directory)]
    firsts, alls = [], []
    for _ in range(runs):
        if cold:
            cache.unlink(missing_ok=True)
        out = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        firsts.append(result["first"])
        alls.append(result["all"])
    return statistics.median(firsts), statistics.median(alls)


def main() -> None:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--pi", type=Path, help="directory with pi installed (node_modules)")
    parser.add_argument("--no-tui", action="store_true", help="skip the resume picker figures")
    parser.add_argument("--picker-once", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.picker_once is not None:
        print(json.dumps(asyncio.run(_picker_once(args.picker_once))))
        return
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
    if not args.no_tui:
        first, listed = _time_picker(home, flat, args.runs, cold=False)
        print(f"resume picker, warm: first rows {first * 1000:.0f} ms, all {listed * 1000:.0f} ms")
        first, listed = _time_picker(home, flat, args.runs, cold=True)
        print(f"resume picker, cold: first rows {first * 1000:.0f} ms, all {listed * 1000:.0f} ms")
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
