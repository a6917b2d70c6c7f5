"""Benchmark: where the Alt+→ sibling switch goes (issue 26's ``sibling`` row, profiled).

The session and the switch are ``bench/issue26.py --rows sibling``'s (a 10,000-entry session
with 50 branch points, a sibling made at the 20th-last user message, ``switch_sibling(1)``
until the frame shows it), headless at 140x40. Prints:

- CPU and wall ms per switch (median over ``--runs``, after two warm-up switches), and the
  CPU of each phase of the switch (inclusive; a phase inside another counts in both);
- ``--profile FILE``: a cProfile dump of the measured switches (``python -m pstats FILE``);
- ``--navigate``: the same for a navigation instead (``bench/tui_tree.py``'s: Enter on another
  branch's end, no summary), back and forth between two leaves;
- ``--callgrind``: instructions per switch (or navigation), load-independent: the script runs
  itself under ``valgrind --tool=callgrind`` with 0 and with ``--runs`` measured ones (waiting
  on events, not on the clock) and prints the difference divided by the runs. ``--tree DIR``
  runs another checkout of pitui (e.g. ``git archive <commit> | tar -x -C DIR``) with this
  interpreter, for an A/B.

Run: ``python bench/sibling_switch.py [--runs 10] [--navigate] [--profile FILE] [--callgrind
[--tree DIR]]``.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import cProfile
import functools
import importlib
import inspect
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from callgrind_count import instructions

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# (module, attribute path): the phases timed, in the order a switch runs them.
PHASES = (
    ("pitui.core.agent_session", "AgentSession.switch_branch"),
    ("pitui.core.session.store", "SessionStore.build_context"),
    ("pitui.ui.app", "PituiApp.rebuild"),
    ("pitui.ui.view.replay", "state_from_messages"),
    ("pitui.ui.controllers.branches", "BranchesController.sync_rebuilt"),
    ("pitui.ui.controllers.branches", "BranchesController.sync"),
    ("pitui.ui.controllers.branches", "BranchesController._sync_rows"),
    ("pitui.ui.controllers.branches", "BranchesController._switches"),
    ("pitui.ui.view.tree_pane", "TreePaneState.sync"),
    ("pitui.ui.widgets.item_resync", "resync"),
    ("pitui.ui.screens.main", "MainScreen.show_status"),
    ("pitui.ui.widgets.branch_tree", "BranchTree.render_line"),
    ("textual.screen", "Screen._refresh_layout"),
    ("textual._compositor", "Compositor.reflow"),
    ("textual._compositor", "Compositor.render_update"),
)


CALLS: dict[str, int] = defaultdict(int)


def _timed(spent: dict[str, float], name: str, function: Any) -> Any:
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            CALLS[name] += 1
            start = time.process_time()
            try:
                return await function(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start

        return timed_async

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        CALLS[name] += 1
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - start

    return timed


def _patch_phases(spent: dict[str, float]) -> None:
    for module_name, path in PHASES:
        owner: Any = importlib.import_module(module_name)
        *outer, attribute = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        if not hasattr(owner, attribute):
            continue
        setattr(owner, attribute, _timed(spent, path, getattr(owner, attribute)))
    # Modules that imported a function by name see the wrapper too.
    replay = importlib.import_module("pitui.ui.view.replay")
    for module in list(sys.modules.values()):
        if getattr(module, "state_from_messages", None) is not None and module is not replay:
            module.state_from_messages = replay.state_from_messages  # type: ignore[attr-defined]


async def _run(runs: int, *, phases: bool, profile: str | None, navigate: bool) -> None:
    import pitui  # first: the checkout on PYTHONPATH (issue26 puts this one's root first)

    print(f"pitui from {Path(pitui.__file__).parent}", file=sys.stderr)
    sys.path[:0] = [str(BENCH)]
    from issue26 import HEIGHT, WIDTH, _make_sibling, _switch_sibling
    from tui_resume import _next_frame
    from tui_tree import _attached, _navigate, _session_file

    from pitui.core.session.tree import leaf_positions

    async def move(app: Any, session: Any) -> float | None:
        if navigate:
            return await _navigate(app, session, leaf_positions)
        return await _switch_sibling(app, session)

    spent: dict[str, float] = defaultdict(float)
    if phases:
        _patch_phases(spent)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["PITUI_HOME"] = str(base / "home")
        cwd = base / "project"
        cwd.mkdir()
        file = _session_file(base, 10_000, 50)
        session, app = await _attached(file, cwd)
        await _make_sibling(session)
        async with app.run_test(size=(WIDTH, HEIGHT)):
            await _next_frame(app)
            # The blink's timer repaints the composer twice a second of wall time: under
            # callgrind (or on a busy machine) that would count as the switch's.
            app.main.composer.cursor_blink = False
            for _ in range(2):  # warm-up: both branches shown once
                await move(app, session)
            await _quiet(app)
            spent.clear()
            CALLS.clear()
            profiler = cProfile.Profile() if profile else None
            walls, cpus = [], []
            for _ in range(runs):
                cpu = time.process_time()
                if profiler is not None:
                    profiler.enable()
                took = await move(app, session)
                if profiler is not None:
                    profiler.disable()
                cpus.append((time.process_time() - cpu) * 1000)
                if took is None:
                    raise SystemExit("no sibling on the path")
                walls.append(took)
            if profiler is not None and profile:
                profiler.dump_stats(profile)
            await _quiet(app)  # nothing left running when the app closes (under valgrind too)
        await session.close()
    if runs:
        what = "navigation" if navigate else "switch"
        print(f"{what}: CPU {statistics.median(cpus):.1f} ms, wall {statistics.median(walls):.1f} "
              f"ms (median of {runs}; CPU min {min(cpus):.1f})")  # fmt: skip
    if phases and runs:
        for _, path in PHASES:
            if path in spent:
                calls = CALLS[path] / runs
                print(f"  {path:<45} {spent[path] * 1000 / runs:7.1f} ms CPU  {calls:5.1f} calls")


async def _quiet(app: Any) -> None:
    """Until no rebuild or worker is running and two frames were drawn."""
    from tui_resume import _next_frame

    for _ in range(3):
        async with app._rebuilding:  # (waits for a rebuild under way)
            pass
        await app.workers.wait_for_complete()
        await _next_frame(app)


def _instructions(tree: Path, runs: int, navigate: bool) -> int:
    pace = {"PITUI_DEMO_PACE_MS": "0"}
    args = ("--runs", str(runs), "--quiet", *(("--navigate",) if navigate else ()))
    return instructions(tree, __file__, *args, extra_env=pace)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--profile", help="write a cProfile dump of the measured switches here")
    parser.add_argument("--navigate", action="store_true", help="navigations, not switches")
    parser.add_argument("--callgrind", action="store_true", help="instructions per switch")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the pitui checkout to measure")
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    os.environ["PITUI_DEMO_PACE_MS"] = "0"
    if options.callgrind:
        tree = options.tree.resolve()
        compileall.compile_dir(str(tree / "pitui"), quiet=1)
        idle = _instructions(tree, 0, options.navigate)
        busy = _instructions(tree, options.runs, options.navigate)
        per = (busy - idle) / max(1, options.runs)
        what = "navigation" if options.navigate else "switch"
        print(f"{tree}: {per / 1e6:.1f} M instructions per {what} ({options.runs} runs)")
        return 0
    if str(options.tree.resolve()) != str(ROOT):
        sys.path.insert(0, str(options.tree.resolve()))
    phases = not options.quiet
    run = _run(options.runs, phases=phases, profile=options.profile, navigate=options.navigate)
    asyncio.run(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
