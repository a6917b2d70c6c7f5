"""Benchmark: the Branches pane on a generated 10,000-entry session with 50 branch points.

Headless (``App.run_test`` at 120×36, where the pane is always shown). Prints:

- first frame with the pane filled: from creating the app (``pitui --session FILE``) to the
  first frame whose Branches pane holds the session's rows (target < 600 ms);
- one appended entry while the pane is shown: the pane's sync (model + widget) per entry,
  median, and the rows rendered anew for it, on this session and on one ten times
  smaller (the count must not grow with the session; target < 2 ms median);
- navigate + re-render: Enter on another branch's end (no summary: ``skipPrompt``) until
  the frame that shows the new conversation and tree (target < 300 ms);
- one search keystroke in the pane: filtering every row, p99 over a typed word, once the
  search texts have been read aside (they are, in a thread, when the pane is filled; the
  bench prints how much of that was left to wait for) (target < 30 ms).

Run: ``python bench/tui_tree.py [--entries 10000] [--branches 50] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_session import generate
from tui_resume import SIZE, _next_frame, _until

TARGETS = {"first": 600.0, "append": 2.0, "navigate": 300.0, "search": 30.0}


def _session_file(directory: Path, entries: int, branches: int) -> Path:
    target = directory / f"tree-{entries}.jsonl"
    return generate(target, entries=entries, seed=3, branches=branches)


async def first_frame(session_file: Path, cwd: Path) -> float:
    """ms from creating the app to a frame with the Branches pane filled."""
    from pitui.cli import build_parser
    from pitui.ui.launch import create_app

    t0 = time.perf_counter()
    app = create_app(build_parser().parse_args(["--session", str(session_file)]), cwd)
    async with app.run_test(size=SIZE):
        rows = app.main.branches.rows
        await _until(lambda: rows.state is not None and len(rows.state) > 0)
        await _next_frame(app)
        elapsed = (time.perf_counter() - t0) * 1000
        if app.live is not None:
            await app.live.close()
    return elapsed


async def _attached(session_file: Path, cwd: Path) -> tuple[Any, Any]:
    from pitui.core.session_setup import SessionOptions, create_agent_session
    from pitui.ui.app import PituiApp
    from pitui.ui.live.session import LiveSession
    from pitui.ui.theme import discover_themes

    options = SessionOptions(cwd=cwd, session_file=session_file, model="demo/demo")
    session = await create_agent_session(options)
    return session, PituiApp(live=LiveSession(session), themes=discover_themes([]))


async def live_changes(session_file: Path, cwd: Path, appends: int = 60) -> dict[str, float]:
    """Per appended entry: the pane's sync time and the rows rendered anew; then a
    navigation to another branch and search keystrokes."""
    from pitui.ai.types import TextContent, UserMessage
    from pitui.core.session.tree import leaf_positions

    session, app = await _attached(session_file, cwd)
    out: dict[str, float] = {}
    async with app.run_test(size=SIZE):
        await _next_frame(app)
        rows = app.main.branches.rows
        sync_ms: list[float] = []
        rendered: list[int] = []
        for k in range(appends):
            message = UserMessage(content=[TextContent(text=f"appended {k}")])
            await session.store.append_message(message)
            before = rows.rendered_rows
            t = time.perf_counter()
            app.branches.sync()
            sync_ms.append((time.perf_counter() - t) * 1000)
            await _next_frame(app)
            rendered.append(rows.rendered_rows - before)
        out["append sync ms (median)"] = statistics.median(sync_ms[5:])
        out["rows rendered per append (max)"] = float(max(rendered[5:]))
        out["navigate ms"] = await _navigate(app, session, leaf_positions)
        t = time.perf_counter()
        await app.workers.wait_for_complete()  # the search texts, read aside after showing
        out["search warm-up left ms"] = (time.perf_counter() - t) * 1000
        median, worst = _search(app)
        out["search keystroke median ms"] = median
        out["search keystroke p99 ms"] = worst
    await session.close()
    return out


async def _navigate(app: Any, session: Any, leaf_positions: Any) -> float:
    """Enter on the oldest other branch's end, as a user with ``branchSummary.skipPrompt``
    (no chooser, no summary) does; ms until the frame that shows the new view. The app's
    own path: the controller moves the leaf, the session's event rebuilds the view once."""
    table = session.store.table
    leaf = session.store.get_leaf_id()
    target = next(table.ids[p] for p in leaf_positions(table) if table.ids[p] != leaf)
    session.settings.branch_summary.skip_prompt = True
    chat = app.chat
    done = rebuilt(app)
    t = time.perf_counter()
    app.branches.navigate(target)  # what Enter on its row runs
    await until_shown(app, session, leaf, chat, done)
    return (time.perf_counter() - t) * 1000


def rebuilt(app: Any) -> asyncio.Future[None]:
    """Done when the app's next :meth:`~pitui.ui.app.PituiApp.rebuild` has returned.

    Made before the move starts, so the wait is on an event, not a poll: a poll's sleeps
    would run the loop (and count instructions) for as long as the wall clock takes, which
    on a busy machine or under callgrind is far longer than the work."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    own = vars(app).get("rebuild")  # a wrapper already on the instance, kept
    original = app.rebuild

    async def rebuild(*args: Any, **kwargs: Any) -> None:
        try:
            await original(*args, **kwargs)
        finally:
            if own is None:
                vars(app).pop("rebuild", None)
            else:
                app.rebuild = own
            if not done.done():
                done.set_result(None)

    app.rebuild = rebuild
    return done


async def until_shown(
    app: Any, session: Any, leaf: str | None, chat: Any, done: asyncio.Future[None]
) -> None:
    """Until a move away from ``leaf`` is on screen: the rebuild ``done`` (from
    :func:`rebuilt`) has returned, the move's workers are done, and the next frame is
    drawn (the rebuild's batch ends with the message after it, so that frame holds it)."""
    await asyncio.wait_for(done, 600)  # under callgrind a move takes minutes
    if session.store.get_leaf_id() == leaf or app.chat is chat:
        raise RuntimeError("the rebuild did not show the move")
    await app.workers.wait_for_complete()
    await _next_frame(app)


def _search(app: Any) -> tuple[float, float]:
    """(median, p99) ms of a keystroke over three typed words (p99 of so few: the worst)."""
    state = app.main.branches.rows.state
    times = []
    for char in "assistant reads the tool result":
        t = time.perf_counter()
        state.type(char)
        app.main.branches.rows._rows_changed()
        times.append((time.perf_counter() - t) * 1000)
    state.clear_query()
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


async def main_async(entries: int, branches: int, runs: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["PITUI_HOME"] = str(home / "home")
        os.environ["PITUI_DEMO_PACE_MS"] = "0"
        cwd = home / "project"
        cwd.mkdir()
        big = _session_file(home, entries, branches)
        small = _session_file(home, max(100, entries // 10), max(1, branches // 10))
        print(f"session: {entries} entries, {branches} branch points, {SIZE[0]}x{SIZE[1]}")
        firsts = [await first_frame(big, cwd) for _ in range(runs)]
        first = statistics.median(firsts)
        print(f"first frame with the pane filled: {first:.0f} ms (median of {runs}; "
              f"target < {TARGETS['first']:.0f} ms)")  # fmt: skip
        small_live = await live_changes(small, cwd)
        big_live = await live_changes(big, cwd)
        for key in big_live:
            print(f"{key}: {big_live[key]:.2f} (a {entries // 10}-entry session: "
                  f"{small_live[key]:.2f})")  # fmt: skip
        print(f"targets: append < {TARGETS['append']} ms, navigate < {TARGETS['navigate']:.0f} "
              f"ms, search p99 < {TARGETS['search']:.0f} ms")  # fmt: skip
    met = (
        first < TARGETS["first"]
        and big_live["append sync ms (median)"] < TARGETS["append"]
        and big_live["navigate ms"] < TARGETS["navigate"]
        and big_live["search keystroke p99 ms"] < TARGETS["search"]
    )
    return 0 if met else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--branches", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    return asyncio.run(main_async(options.entries, options.branches, options.runs))


if __name__ == "__main__":
    sys.exit(main())
