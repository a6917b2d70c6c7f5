"""Benchmark: every row of issue 26's table, each beside the anchor the issue names.

Rows (``--rows`` picks some; all by default):

- ``screen``: first stable screen with a configured model, tmux 140x40, beside a bare
  Textual app that draws one line (``bench/bare_textual.py``) and pi 1.6;
- ``nokey``: the same for a first run with no API key (the demo model and its notice), each
  run in a fresh home (pi: a fresh agent directory without models.json);
- ``print``: ``pitui -p`` read-then-answer beside pi (``bench/startup.py``'s scenario);
- ``navigate``: Enter on another branch's end (no summary) + the frame that shows it, on
  a 10,000-entry session with 50 branch points (headless; a frame budget, no anchor);
  through the app's own path, as ``sibling``: the session's event rebuilds the view once
  (the bench no longer rebuilds it itself beside the app's rebuild);
- ``sibling``: Alt+→ (``nextBranch``) on the same session, until the frame that shows it;
- ``rss``: resident memory, idle, with a 10,000-message session open, beside pi;
- ``context``: ``pitui session context FILE --json`` on a 100,000-entry file (whole
  process, wall and peak RSS) beside pi's own SessionManager + buildSessionContext +
  convertToLlm printing the same context (``bench/pi_session_load.mjs``);
- ``echo``: keystroke echo p99 while 200 tokens/s stream into a 5,000-message session.

Runs alternate (A B A B …) and each ratio is the median of the pair ratios, so a drift in
the machine's speed hits both sides of a pair alike; the load average is printed beside
every row. pi is found as ``bench/pi_cli.py`` finds it (``--pi DIR``; without it the pi
columns are empty). Needs tmux for the terminal rows.

Run: ``python bench/issue26.py [--pi /tmp/pi16] [--runs 5] [--rows screen,print,…]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(BENCH), str(ROOT)]

from loopback_model import LoopbackModel, write_agent_dirs  # noqa: E402
from pi_cli import offline_env, pi_command, pi_library, pi_version  # noqa: E402
from tmux_probe import kill_server  # noqa: E402

WIDTH, HEIGHT = 140, 40
ROWS = ("screen", "nokey", "print", "navigate", "sibling", "rss", "context", "echo")
API_KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "GEMINI_API_KEY")


@dataclass
class Row:
    """One line of the table."""

    work: str
    figure: str
    anchor: str
    ratio: str
    target: str
    met: bool | None
    load: float


class Rows(list[Row]):
    """The table so far; each row is also printed as it is measured."""

    def append(self, row: Row) -> None:
        super().append(row)
        met = "-" if row.met is None else ("met" if row.met else "NOT met")
        print(
            f"{row.work}: {row.figure} | {row.anchor} | {row.ratio} | target {row.target}: "
            f"{met} (load {row.load:.2f})",
            flush=True,
        )


def _load() -> float:
    return os.getloadavg()[0]


def _ratio(mine: list[float], theirs: list[float]) -> float:
    """The median of the per-pair ratios."""
    return statistics.median(a / b for a, b in zip(mine, theirs, strict=True))


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ms"


# --------------------------------------------------------------------------- terminal rows


def _screen_rows(options: argparse.Namespace, rows: list[Row], which: set[str]) -> None:
    from tui_coldstart import Program, compile_pitui, pitui_argv, run_once

    compile_pitui()
    bare_argv = [sys.executable, str(BENCH / "bare_textual.py")]
    with tempfile.TemporaryDirectory() as tmp, LoopbackModel() as server:
        root = Path(tmp)
        dirs = write_agent_dirs(root, server.base_url)
        home = {"PITUI_HOME": str(dirs["pitui-home"]), "HOME": str(dirs["home"])}
        model = ["--model", "loopback/bench-model"]
        pitui = Program("pitui", [*pitui_argv(), *model], home, python=True)
        bare = Program("bare Textual", bare_argv, home, python=True)
        pi, pi_argv = None, []
        if options.pi is not None:
            pi_argv = pi_command(options.pi)
            pi_env = offline_env(dirs["pi-agent"], dirs["home"])
            pi = Program(pi_version(options.pi), [*pi_command(options.pi), *model], pi_env)

        def stable(name: str, program: Program, cwd: Path = dirs["project"]) -> float:
            return run_once(f"i26-{name}", program, cwd, WIDTH, True, HEIGHT).stable_ms

        if "screen" in which:
            stable("warm", pitui)  # writes the start-up snapshot, as any earlier start did
            series = _alternate(
                options.runs,
                {
                    "pitui": lambda i: stable(f"p{i}", pitui),
                    "bare": lambda i: stable(f"b{i}", bare),
                    **({"pi": lambda i: stable(f"pi{i}", pi)} if pi else {}),
                },
            )
            rows.append(_against("first stable screen, configured model", series, 1.1, 0.55))
        if "nokey" in which:
            series = _alternate(
                options.runs,
                {
                    "pitui": lambda i: stable(
                        f"np{i}", _first_run(root, i, "pitui", pitui_argv(), pi=False)
                    ),
                    "bare": lambda i: stable(f"nb{i}", bare),
                    **(
                        {
                            "pi": lambda i: stable(
                                f"npi{i}", _first_run(root, i, "pi", pi_argv, pi=True)
                            )
                        }
                        if pi
                        else {}
                    ),
                },
            )
            rows.append(_against("first stable screen, first run, no key", series, 1.1, 0.55))
    kill_server()


def _first_run(root: Path, i: int, name: str, argv: list[str], pi: bool) -> Any:
    """``argv`` (no model named, no key) in a home of its own that has never run it."""
    from tui_coldstart import Program

    base = root / f"first-{name}-{i}"
    shutil.rmtree(base, ignore_errors=True)
    home, state = base / "home", base / "state"
    home.mkdir(parents=True)
    state.mkdir()
    if pi:
        return Program(name, argv, offline_env(state, home))
    return Program(name, argv, {"PITUI_HOME": str(state), "HOME": str(home)}, python=True)


def _alternate(runs: int, runners: dict[str, Callable[[int], float]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in runners}
    for i in range(runs):
        for name, runner in runners.items():
            out[name].append(runner(i))
    return out


def _against(work: str, series: dict[str, list[float]], bare_t: float, pi_t: float) -> Row:
    mine = series["pitui"]
    to_bare = _ratio(mine, series["bare"])
    anchors = [f"bare Textual {_ms(series['bare'])}"]
    ratios = [f"{to_bare:.2f}x bare"]
    met = to_bare <= bare_t
    if "pi" in series:
        to_pi = _ratio(mine, series["pi"])
        anchors.append(f"pi {_ms(series['pi'])}")
        ratios.append(f"{to_pi:.2f}x pi")
        met = met and to_pi <= pi_t
    target = f"<= {bare_t}x bare, <= {pi_t}x pi"
    return Row(work, _ms(mine), ", ".join(anchors), ", ".join(ratios), target, met, _load())


def _print_row(options: argparse.Namespace, rows: list[Row]) -> None:
    from startup import pair_ratio, print_turns
    from tui_coldstart import compile_pitui

    compile_pitui()
    mine, theirs = print_turns(options.runs, options.pi)
    figure = f"{mine.wall():.0f} ms ({mine.cpu():.0f} ms CPU)"
    if theirs is None:
        rows.append(Row("pitui -p read-then-answer", figure, "-", "-", "<= 0.5x pi", None, _load()))
        return
    ratio = pair_ratio(mine, theirs)
    anchor = f"pi {theirs.wall():.0f} ms ({theirs.cpu():.0f} ms CPU)"
    rows.append(
        Row(
            "pitui -p read-then-answer",
            figure,
            anchor,
            f"{ratio:.2f}x pi",
            "<= 0.5x pi",
            ratio <= 0.5,
            _load(),
        )
    )


def _rss_row(options: argparse.Namespace, rows: list[Row]) -> None:
    from tui_resume import compile_pitui, rounded, time_pi, time_pitui, write_session

    compile_pitui()
    n = rounded(10_000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, cwd = root / "home", root / "project"
        cwd.mkdir()
        os.environ["PITUI_HOME"] = str(home)
        session_file = asyncio.run(write_session(cwd, n))
        size = (WIDTH, HEIGHT)
        runners: dict[str, Callable[[int], float]] = {
            "pitui": lambda i: time_pitui(session_file, cwd, home, size, 1, n)[0].rss_mb
        }
        if options.pi is not None:
            runners["pi"] = lambda i: (
                time_pi(options.pi, session_file, cwd, root, size, 1, n)[0].rss_mb
            )
        series = _alternate(max(2, options.runs // 2), runners)
    kill_server()
    figure = f"{statistics.median(series['pitui']):.0f} MB"
    if "pi" not in series:
        rows.append(Row("idle RSS, 10,000 messages", figure, "-", "-", "<= 0.4x pi", None, _load()))
        return
    ratio = _ratio(series["pitui"], series["pi"])
    anchor = f"pi {statistics.median(series['pi']):.0f} MB"
    rows.append(
        Row(
            "idle RSS, 10,000 messages",
            figure,
            anchor,
            f"{ratio:.2f}x pi",
            "<= 0.4x pi",
            ratio <= 0.4,
            _load(),
        )
    )


# --------------------------------------------------------------------------- processes


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, peak RSS MB) of one run with stdout to /dev/null (RSS via GNU time)."""
    gnu_time = shutil.which("time") or "/usr/bin/time"
    wrapped = [gnu_time, "-f", "%M", *command] if Path(gnu_time).exists() else command
    start = time.perf_counter()
    done = subprocess.run(
        wrapped,
        env=env,
        stdout=subprocess.DEVNULL,
        capture_output=False,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    wall = (time.perf_counter() - start) * 1000
    last = done.stderr.strip().splitlines()[-1:] if wrapped is not command else []
    return wall, (int(last[0]) / 1024 if last and last[0].isdigit() else float("nan"))


def _context_row(options: argparse.Namespace, rows: list[Row]) -> None:
    from session_load import PI_SCRIPT, _file
    from tui_coldstart import compile_pitui

    compile_pitui()  # as installed: no module compiled again in each measured run
    path = _file(options.context_file)
    with tempfile.TemporaryDirectory() as tmp:
        pitui_env = {**os.environ, "PITUI_HOME": tmp, "PYTHONPATH": str(ROOT)}
        pitui = [sys.executable, "-m", "pitui", "session", "context", str(path), "--json"]
        runners: dict[str, Callable[[int], tuple[float, float]]] = {
            "pitui": lambda i: _timed(pitui, pitui_env)
        }
        if options.pi is not None:
            node, library = pi_library(options.pi)
            pi_env = {**os.environ, "PI_ENTRY": str(library)}
            pi = [node, str(PI_SCRIPT), "print", str(path)]
            runners["pi"] = lambda i: _timed(pi, pi_env)
        for runner in runners.values():
            runner(0)  # the file in the page cache, node's compile cache
        out: dict[str, list[tuple[float, float]]] = {name: [] for name in runners}
        for i in range(options.runs):
            for name, runner in runners.items():
                out[name].append(runner(i))
    walls = {name: [w for w, _ in runs] for name, runs in out.items()}
    peak = statistics.median(m for _, m in out["pitui"])
    figure = f"{_ms(walls['pitui'])}, peak {peak:.0f} MB"
    work = f"session context --json, 100k entries ({path.name})"
    if "pi" not in walls:
        rows.append(Row(work, figure, "-", "-", "<= 0.4x pi, <= 200 MB", peak <= 200, _load()))
        return
    ratio = _ratio(walls["pitui"], walls["pi"])
    pi_peak = statistics.median(m for _, m in out["pi"])
    anchor = f"pi {_ms(walls['pi'])}, peak {pi_peak:.0f} MB"
    rows.append(
        Row(
            work,
            figure,
            anchor,
            f"{ratio:.2f}x pi",
            "<= 0.4x pi, <= 200 MB",
            ratio <= 0.4 and peak <= 200,
            _load(),
        )
    )


# --------------------------------------------------------------------------- headless rows


def _tree_rows(options: argparse.Namespace, rows: list[Row], which: set[str]) -> None:
    """Navigation and the sibling switch through the app's own rebuild (its panes resync:
    widgets kept by item id); each figure is the median over its runs, CPU beside wall."""
    from tui_tree import _attached, _navigate, _session_file

    from pitui.core.session.tree import leaf_positions

    modes = ("rebuild",)

    async def measure() -> dict[str, dict[str, dict[str, list[float]]]]:
        from tui_resume import _next_frame

        out: dict[str, dict[str, list[float]]] = {
            "navigate": {m: [] for m in modes},
            "sibling": {m: [] for m in modes},
        }
        cpus: dict[str, dict[str, list[float]]] = {k: {m: [] for m in modes} for k in out}
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            os.environ["PITUI_HOME"] = str(base / "home")
            cwd = base / "project"
            cwd.mkdir()
            file = _session_file(base, 10_000, 50)
            session, app = await _attached(file, cwd)
            if "sibling" in which:
                await _make_sibling(session)
            async with app.run_test(size=(WIDTH, HEIGHT)):
                await _next_frame(app)
                for key in ("sibling", "navigate"):  # the sibling first: on its branch
                    if key not in which:
                        continue
                    for _ in range(options.runs + 1):  # the first round warms up
                        for mode in modes:
                            cpu = time.process_time()
                            if key == "navigate":
                                took: float | None = await _navigate(app, session, leaf_positions)
                            else:
                                took = await _switch_sibling(app, session)
                            if took is not None:
                                out[key][mode].append(took)
                                cpus[key][mode].append((time.process_time() - cpu) * 1000)
                    for mode in modes:
                        del out[key][mode][:1], cpus[key][mode][:1]
            await session.close()
        return {"wall": out, "cpu": cpus}

    measured = asyncio.run(measure())
    found, cpu_of = measured["wall"], measured["cpu"]
    labels = {
        "navigate": ("navigate + re-render, 10k entries, 50 branch points", 150.0),
        "sibling": ("Alt+→ sibling switch", 100.0),
    }
    for key, (work, budget) in labels.items():
        if key not in which:
            continue
        now = found[key]["rebuild"]
        if not now:
            rows.append(
                Row(work, "no sibling on the path", "-", "-", f"<= {budget:.0f} ms", False, _load())
            )
            continue
        cpu = cpu_of[key]["rebuild"]
        figure, met = f"{_ms(now)} (CPU {_ms(cpu)})", statistics.median(now) <= budget
        anchor, ratio = "frame budget", f"max {max(now):.0f} ms"
        rows.append(Row(work, figure, anchor, ratio, f"<= {budget:.0f} ms", met, _load()))


async def _make_sibling(session: Any) -> None:
    """A second answer to the 20th-last user message, so its branch has a sibling (the
    generated session's branches start with summaries, which are not siblings pi switches)."""
    from pitui.ai.types import AssistantMessage, TextContent, UserMessage

    store = session.store
    users = [e for e in store.get_branch() if e.type == "message" and e.message.role == "user"]
    store.branch(users[-20].parent_id)
    await store.append_message(UserMessage(content=[TextContent(text="Try another way.")]))
    reply = AssistantMessage(
        api="demo", provider="demo", model="demo", content=[TextContent(text="Done.")]
    )
    await store.append_message(reply)
    session.rebuild_from_session()


async def _switch_sibling(app: Any, session: Any) -> float | None:
    """ms from Alt+→ to the frame showing the sibling's branch (None: no sibling here)."""
    from tui_tree import rebuilt, until_shown

    if not any(n > 1 for _, _, n in app.branches._path_users.values()):
        return None
    leaf, chat, done = session.store.get_leaf_id(), app.chat, rebuilt(app)
    t = time.perf_counter()
    app.branches.switch_sibling(1)  # what Alt+→ (nextBranch) runs
    await until_shown(app, session, leaf, chat, done)
    return (time.perf_counter() - t) * 1000


def _echo_row(options: argparse.Namespace, rows: list[Row]) -> None:
    from tui_stream import (
        BenchApp,
        Source,
        _final_text_shown,
        _press_sampler,
        _wait,
        history,
        p99,
        reply_text,
    )
    from tui_stream import stream_events as events_of

    from pitui.ui.theme import discover_themes
    from pitui.ui.view.reducer import state_from_messages
    from pitui.ui.widgets.composer import Composer

    async def once() -> list[float]:
        source = Source()
        app = BenchApp(event_source=source.subscribe, themes=discover_themes([]))
        pieces = reply_text()
        stream = events_of(pieces, 1_800_000_000_000)
        samples: list[float] = []
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            while not source.listeners:  # noqa: ASYNC110 - the app subscribes on mount
                await asyncio.sleep(0.001)
            await app.rebuild(state_from_messages(history(5_000)))
            await pilot.pause()
            app.query_one(Composer).focus()
            done = asyncio.Event()
            sampler = asyncio.create_task(_press_sampler(app, done, samples))
            for event in stream:  # 200 tokens/s, one token per update
                for listener in list(source.listeners):
                    listener(event)
                await asyncio.sleep(1 / 200)
            await _wait(lambda: _final_text_shown(app, "".join(pieces)))
            done.set()
            await sampler
        return samples

    samples: list[float] = []
    for _ in range(max(1, options.runs // 2)):
        samples += asyncio.run(once())
    worst = p99(samples)
    rows.append(
        Row(
            "key echo p99, 200 tok/s into 5,000 messages",
            f"{worst:.1f} ms",
            f"p50 {statistics.median(samples):.1f} ms",
            f"{len(samples)} keys",
            "<= 33 ms",
            worst <= 33,
            _load(),
        )
    )


# --------------------------------------------------------------------------- table


def _table(rows: list[Row]) -> None:
    print(f"\nissue 26, {os.cpu_count()} cores; ratios: median of the A/B pair ratios")
    head = ("work", "pitui", "anchor", "ratio", "target", "met", "load")
    cells = [
        (
            r.work,
            r.figure,
            r.anchor,
            r.ratio,
            r.target,
            "-" if r.met is None else ("yes" if r.met else "NO"),
            f"{r.load:.2f}",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    for line in [head, *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pi", type=Path, help="directory where pi was npm-installed")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated: " + ",".join(ROWS))
    parser.add_argument("--context-file", choices=["auto", "few"], default="auto")
    options = parser.parse_args()
    which = set(options.rows.split(","))
    if unknown := which - set(ROWS):
        parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
    for var in API_KEY_VARS:
        os.environ.pop(var, None)
    os.environ["PITUI_DEMO_PACE_MS"] = "0"
    rows = Rows()
    terminal = which & {"screen", "nokey", "rss"}
    if terminal and shutil.which("tmux") is None:
        print("issue26: tmux is not installed; the terminal rows are skipped")
        which -= terminal
    if which & {"screen", "nokey"}:
        _screen_rows(options, rows, which)
    if "print" in which:
        _print_row(options, rows)
    if "context" in which:
        _context_row(options, rows)
    if "rss" in which:
        _rss_row(options, rows)
    if which & {"navigate", "sibling"}:
        _tree_rows(options, rows, which)
    if "echo" in which:
        _echo_row(options, rows)
    _table(rows)
    return 0 if all(r.met is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
