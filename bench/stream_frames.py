"""Benchmark: the cost of each frame while a reply streams into a 5,000-message session.

Issue 26's ``echo`` row (``bench/issue26.py --rows echo``) times keypresses against a stream
paced by the wall clock, which a busy machine blurs. This drives the same work frame by
frame instead: ``bench/tui_stream.py``'s 914-chunk reply, ``--per-frame`` chunks a frame
(3: 200 tokens/s at 60 frames/s), after ``--history`` earlier messages, headless at 140x40.
For each frame the chunks go through the app's real bridge, one ``x`` is typed into the
composer (as the echo row's sampler does) and the frame is drawn. It prints:

- the CPU of each frame (the batch, the key, the drawing, and the cyclic collections in
  them): median, p99, max; and the share of the collector;
- ``--callgrind``: instructions per frame, load-independent: the script runs itself under
  ``valgrind --tool=callgrind`` with 0 frames and with ``--frames`` frames and prints the
  difference divided by the frames. ``--tree DIR`` runs another checkout of pitui (e.g.
  ``git archive <commit> | tar -x -C DIR``) with this interpreter, for an A/B;
- ``--profile FILE``: a cProfile dump of the measured frames (``python -m pstats FILE``).

Run: ``python bench/stream_frames.py [--frames 300] [--callgrind [--tree DIR]]``.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import cProfile
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from callgrind_count import instructions

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SIZE = (140, 40)


class GcClock:
    """CPU spent in cyclic collections, and how many full ones ran."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.full = 0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.spent += time.thread_time() - self._start
            self.full += info["generation"] == 2


async def _run(history_size: int, frames: int, per_frame: int, profile: str | None) -> None:
    import pitui  # first: the checkout on PYTHONPATH (--tree)

    print(f"pitui from {Path(pitui.__file__).parent}", file=sys.stderr)
    sys.path[:0] = [str(BENCH)]
    from textual import events
    from tui_resume import _next_frame
    from tui_stream import BenchApp, Source, history, reply_text, stream_events

    from pitui.ui.theme import discover_themes
    from pitui.ui.view.reducer import state_from_messages
    from pitui.ui.widgets.composer import Composer

    source = Source()
    app = BenchApp(event_source=source.subscribe, themes=discover_themes([]))
    stream = stream_events(reply_text(), 1_800_000_000_000)
    head, body = stream[:6], stream[6:-3]  # up to the text's start; the deltas
    sent = 0

    async def deliver(chunk: list[Any]) -> None:
        nonlocal sent
        for event in chunk:
            for listener in list(source.listeners):
                listener(event)
        assert app.bridge is not None
        app.bridge.flush()
        sent += len(chunk)
        while app.batches < sent:  # noqa: ASYNC110 - the cheapest probe
            await asyncio.sleep(0)

    clock = GcClock()
    gc.callbacks.append(clock)
    costs: list[float] = []
    async with app.run_test(size=SIZE):
        while not source.listeners:  # noqa: ASYNC110 - the app subscribes on mount
            await asyncio.sleep(0.001)
        await app.rebuild(state_from_messages(history(history_size)))
        for _ in range(3):  # (not pilot.pause(): its time limit is too short under valgrind)
            await _next_frame(app)
        composer = app.query_one(Composer)
        composer.focus()
        await deliver(head)
        await _next_frame(app)
        await _next_frame(app)
        driver = app._driver
        assert driver is not None
        clock.spent, clock.full = 0.0, 0
        profiler = cProfile.Profile() if profile else None
        for k in range(frames):
            chunk = body[k * per_frame : (k + 1) * per_frame]
            if not chunk:
                break
            cpu = time.thread_time()
            if profiler is not None:
                profiler.enable()
            await deliver(chunk)
            before = composer.text
            key = events.Key("x", "x")
            key.set_sender(app)
            driver.send_message(key)
            while composer.text == before:  # noqa: ASYNC110 - as the echo row's sampler
                await asyncio.sleep(0)
            await _next_frame(app)
            if profiler is not None:
                profiler.disable()
            costs.append((time.thread_time() - cpu) * 1000)
            if len(composer.text) > 200:
                composer.clear()
        if profiler is not None and profile:
            profiler.dump_stats(profile)
        await _next_frame(app)
    if costs:
        ordered = sorted(costs)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
        print(
            f"{len(costs)} frames: CPU median {statistics.median(costs):.1f} ms, p99 {p99:.1f} ms, "
            f"max {ordered[-1]:.1f} ms; collector {clock.spent * 1000:.0f} ms of "
            f"{sum(costs):.0f} ms ({clock.full} full collections)"
        )


def _instructions(tree: Path, options: argparse.Namespace, frames: int) -> int:
    return instructions(
        tree, __file__, "--frames", str(frames),
        "--history", str(options.history), "--per-frame", str(options.per_frame),
    )  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--per-frame", type=int, default=3, help="chunks streamed per frame")
    parser.add_argument("--history", type=int, default=5_000, help="earlier messages")
    parser.add_argument("--callgrind", action="store_true", help="instructions per frame")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the pitui checkout to measure")
    parser.add_argument("--profile", help="write a cProfile dump of the measured frames here")
    options = parser.parse_args()
    if options.callgrind:
        tree = options.tree.resolve()
        compileall.compile_dir(str(tree / "pitui"), quiet=1)
        idle = _instructions(tree, options, 0)
        busy = _instructions(tree, options, options.frames)
        per = (busy - idle) / max(1, options.frames)
        print(f"{tree}: {per / 1e6:.2f} M instructions per frame ({options.frames} frames)")
        return 0
    if str(options.tree.resolve()) != str(ROOT):
        sys.path.insert(0, str(options.tree.resolve()))
    asyncio.run(_run(options.history, options.frames, options.per_frame, options.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
