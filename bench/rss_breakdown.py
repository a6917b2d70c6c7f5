"""Benchmark aid: where the idle memory of pitui with a 10,000-message session open goes.

The ``rss`` row of ``bench/issue26.py`` gives one figure; this says what it is made of.
It writes the same session as that row (``bench/tui_resume.py``), starts pitui on it in
tmux (140x40) under a small wrapper, waits for the Branches pane to count every row,
lets it idle 2 s and then signals it (SIGUSR1) to write down, from inside:

- VmRSS and /proc/self/smaps_rollup (anonymous vs file-backed pages);
- pymalloc's arenas (``sys._debugmallocstats``) and glibc's heap (``mallinfo2``):
  memory in use vs held free;
- with ``--trace N``: a tracemalloc snapshot (N frames), grouped by the innermost frame
  inside pitui (imports apart), so each line names the pitui code that made what is
  still alive. Tracing slows start-up and adds its own memory: read the groups, not the
  RSS, of a traced run.

``--empty`` runs the same app on a new session instead: the floor the session adds to.

Run: ``python bench/rss_breakdown.py [--trace 15] [--top 40] [--empty]`` (needs tmux).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(BENCH), str(ROOT)]

IDLE_SECONDS = 2.0


# --------------------------------------------------------------------------- inside pitui


def _mallinfo() -> dict[str, int]:
    import ctypes

    names = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
             "uordblks", "fordblks", "keepcost")  # fmt: skip

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in names]

    try:
        call = ctypes.CDLL(None).mallinfo2
    except (AttributeError, OSError):
        return {}
    call.restype = MallInfo2
    info = call()
    return {name: int(getattr(info, name)) for name in names}


def _pymalloc(out: Path) -> dict[str, int]:
    """pymalloc's totals, from its stats printed to stderr (fd 2 sent to a file)."""
    saved = os.dup(2)
    with out.open("w") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    found = {}
    for line in out.read_text().splitlines():
        for key in ("arenas allocated current", "bytes in allocated blocks",
                    "bytes in available blocks"):  # fmt: skip
            if line.startswith(f"# {key}"):
                found[key] = int(line.split("=")[-1].replace(",", "").strip())
    return found


def _dump(out: Path) -> None:
    import gc
    import tracemalloc

    gc.collect()
    facts: dict[str, object] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-1] == "kB":
            facts[parts[0].rstrip(":")] = int(parts[1])
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS", "RssAnon", "RssFile")):
            key, value = line.split(":")
            facts[key] = int(value.split()[0])
    facts["pymalloc"] = _pymalloc(out.with_suffix(".malloc"))
    facts["glibc"] = _mallinfo()
    if tracemalloc.is_tracing():
        tracemalloc.take_snapshot().dump(str(out.with_suffix(".snap")))
    if os.environ.get("PITUI_RSS_CENSUS"):
        facts["census"] = _census()
    out.write_text(json.dumps(facts))


def _census() -> list[tuple[str, int, int]]:
    """Live objects by type: (type, count, bytes by ``sys.getsizeof``), largest first.
    Objects the collector does not track (strings, numbers, bytes) are counted once each,
    as found among the referents of those it does."""
    import gc

    sizes: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    seen: set[int] = set()
    tracked = gc.get_objects()
    for obj in tracked:
        name = type(obj).__qualname__
        sizes[name] += sys.getsizeof(obj)
        counts[name] += 1
    for ref in gc.get_referents(*tracked):
        if not gc.is_tracked(ref) and id(ref) not in seen:
            seen.add(id(ref))
            name = type(ref).__qualname__
            sizes[name] += sys.getsizeof(ref)
            counts[name] += 1
    return [(name, counts[name], size) for name, size in sizes.most_common(40)]


def serve(out: Path, argv: list[str]) -> int:
    """Run pitui's command line, dumping the facts above on SIGUSR1."""
    signal.signal(signal.SIGUSR1, lambda *_: _dump(out))
    from pitui.cli import main

    return main(argv)


# --------------------------------------------------------------------------- outside


def _probe(options: argparse.Namespace, root: Path) -> dict[str, Any]:
    from tmux_probe import kill_server, kill_session, tmux
    from tui_resume import _descendants, compile_pitui, pitui_sights, rounded, write_session

    compile_pitui()
    n = rounded(10_000)
    home, cwd, out = root / "home", root / "project", root / "facts.json"
    cwd.mkdir()
    os.environ["PITUI_HOME"] = str(home)
    argv = [] if options.empty else ["--session", str(asyncio.run(write_session(cwd, n)))]
    env = {"PITUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    if options.census:
        env["PITUI_RSS_CENSUS"] = "1"
    if options.trace:
        env["PYTHONTRACEMALLOC"] = str(options.trace)
    flags = [x for key, value in env.items() for x in ("-e", f"{key}={value}")]
    command = " ".join(
        ["env -u PYTHONDONTWRITEBYTECODE", sys.executable, str(Path(__file__).resolve()),
         "--serve", str(out), *argv]
    )  # fmt: skip
    ready = (lambda s: "Conversation" in s and "╰" in s) if options.empty else (
        pitui_sights(n)["tree"]
    )  # fmt: skip
    name = f"rss-breakdown-{os.getpid()}"
    tmux("new-session", "-d", "-s", name, "-x", "140", "-y", "40", "-c", str(cwd), *flags,
         command)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while not ready(tmux("capture-pane", "-p", "-t", name)):
            if time.monotonic() > deadline:
                raise TimeoutError("pitui never showed the whole session")
            time.sleep(0.05)
        time.sleep(IDLE_SECONDS * (3 if options.trace else 1))
        pane = int(tmux("display", "-p", "-t", name, "#{pane_pid}").strip())
        for pid in _descendants(pane):
            if b"--serve" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGUSR1)
                break
        while not out.exists():
            time.sleep(0.1)
        time.sleep(0.3)  # the file is written in one call; let it land
        return dict(json.loads(out.read_text()))
    finally:
        kill_session(name)
        kill_server()


def _groups(snapshot_path: Path, top: int) -> None:
    import tracemalloc

    snapshot = tracemalloc.Snapshot.load(str(snapshot_path))
    sizes: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    imports = 0
    for trace in snapshot.traces:
        frames = list(trace.traceback)
        if any("importlib._bootstrap" in f.filename for f in frames):
            imports += trace.size
            continue
        mine = next((f for f in reversed(frames) if "/pitui/" in f.filename), None)
        if mine is None:
            inner = frames[-1]
            key = "(no pitui frame) " + inner.filename.split("site-packages/")[-1]
            key += f":{inner.lineno}"
        else:
            key = mine.filename.split("/pitui/")[-1] + f":{mine.lineno}"
        sizes[key] += trace.size
        counts[key] += 1
    print(f"traced: imports {imports / 1e6:.1f} MB, the rest {sum(sizes.values()) / 1e6:.1f} MB")
    for key, size in sizes.most_common(top):
        print(f"  {size / 1e6:7.2f} MB {counts[key]:8d} blocks  {key}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=int, default=0, help="tracemalloc frames (0: off)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--empty", action="store_true", help="a new session: the floor")
    parser.add_argument(
        "--census", action="store_true", help="live objects by type (sys.getsizeof)"
    )
    options, rest = parser.parse_known_args()
    if options.serve is not None:
        return serve(options.serve, rest)
    with tempfile.TemporaryDirectory() as tmp:
        facts = _probe(options, Path(tmp))
        kind = "a new session" if options.empty else "a 10,000-message session"
        rss, anon, files = (facts[k] / 1024 for k in ("VmRSS", "RssAnon", "RssFile"))
        print(
            f"pitui with {kind}, idle: VmRSS {rss:.1f} MB (anonymous {anon:.1f}, files {files:.1f})"
        )
        pymalloc, glibc = facts.get("pymalloc") or {}, facts.get("glibc") or {}
        if pymalloc:
            arenas = pymalloc.get("arenas allocated current", 0)
            used = pymalloc.get("bytes in allocated blocks", 0) / 1e6
            free = pymalloc.get("bytes in available blocks", 0) / 1e6
            print(f"pymalloc: {arenas} arenas of 1 MiB, {used:.1f} MB in use, {free:.1f} MB free")
        if glibc:
            heap, used, free = (glibc[k] / 1e6 for k in ("arena", "uordblks", "fordblks"))
            print(f"glibc heap: {heap:.1f} MB, {used:.1f} MB in use, {free:.1f} MB free; "
                  f"mmapped {glibc['hblkhd'] / 1e6:.1f} MB")  # fmt: skip
        for name, count, size in facts.get("census") or []:
            print(f"  {size / 1e6:7.2f} MB {count:8d}  {name}")
        snapshot = Path(tmp) / "facts.snap"
        if snapshot.exists():
            _groups(snapshot, options.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
