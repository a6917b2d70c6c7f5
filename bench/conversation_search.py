"""Benchmark: Ctrl+F over a 5,000-message conversation (target < 50 ms per keystroke).

Builds the view state of a 5,000-message session (the same messages as
``bench/tui_resume.py``) and prints:

- the search alone (:class:`pitui.ui.view.search.SearchIndex`): the first keystroke (the
  corpus is built), each later keystroke of a typed query, a step to the next match, and
  a keystroke after one item changed (a streamed token: the corpus is rebuilt from the
  cached texts);
- a keystroke in the app (headless ``App.run_test``): the search bar's search, the
  highlights and the scroll to the match, until the next frame is drawn; and a jump to the
  oldest match, whose item is not mounted (a window is mounted around it).

Run: ``python bench/conversation_search.py [--messages 5000] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's pitui

from tui_resume import SIZE, _messages, _next_frame

TARGET_MS = 50.0
QUERY = "function so"


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def pure(state: Any, runs: int) -> dict[str, float]:
    """Milliseconds of the search itself (medians over ``runs``)."""
    from pitui.ui.view import items
    from pitui.ui.view.search import SearchIndex
    from pitui.ui.view.state import AssistantItem

    first, typed, steps, after_token = [], [], [], []
    for _ in range(runs):
        index = SearchIndex()
        t = time.perf_counter()
        match = index.last_before(state, QUERY[0])
        first.append(_ms(t))
        for end in range(2, len(QUERY) + 1):
            t = time.perf_counter()
            match = index.last_before(state, QUERY[:end])
            typed.append(_ms(t))
        t = time.perf_counter()
        index.step(state, QUERY, match, -1)
        steps.append(_ms(t))
        last = next(i for i in reversed(state.items) if isinstance(i, AssistantItem))
        changed = items.put(state, replace(last, text=last.text + " token"))
        t = time.perf_counter()
        index.last_before(changed, QUERY)
        after_token.append(_ms(t))
    return {
        "first keystroke (corpus built)": statistics.median(first),
        "later keystroke (median)": statistics.median(typed),
        "later keystroke (max)": max(typed),
        "next match": statistics.median(steps),
        "keystroke after a streamed token": statistics.median(after_token),
    }


async def in_app(state: Any) -> dict[str, float]:
    """Milliseconds per keystroke in the app, search to drawn frame."""
    from pitui.ui.app import PituiApp
    from pitui.ui.theme import discover_themes

    app = PituiApp(themes=discover_themes([]))
    async with app.run_test(size=SIZE):
        await app.rebuild(state)
        await _next_frame(app)
        bar = await app.main.search_bar()
        bar.open()
        await _next_frame(app)
        typed = []
        for end in range(1, len(QUERY) + 1):
            t = time.perf_counter()
            await bar.search(QUERY[:end])
            await _next_frame(app)
            typed.append(_ms(t))
        await bar.search("Question 0:")
        t = time.perf_counter()
        await bar.step(1)  # wraps to the oldest match: not mounted
        await _next_frame(app)
        oldest = _ms(t)
    shown = "  ".join(f"{QUERY[: i + 1]!r} {ms:.0f}" for i, ms in enumerate(typed))
    print(f"in the app, per keystroke (ms): {shown}")
    return {
        "keystroke to frame (median)": statistics.median(typed),
        "keystroke to frame (max)": max(typed),
        "jump to an unmounted match, to frame": oldest,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PITUI_HOME"] = str(Path(tmp) / "home")
        from pitui.ui.view.replay import state_from_messages

        state = state_from_messages(_messages(options.messages))  # type: ignore[arg-type]
        print(f"conversation: {options.messages} messages, {len(state.items)} items")
        figures = pure(state, options.runs)
        figures.update(asyncio.run(in_app(state)))
    for name, value in figures.items():
        print(f"{name:>40}: {value:6.1f} ms")
    worst = max(figures["later keystroke (max)"], figures["keystroke to frame (median)"])
    print(f"target < {TARGET_MS:.0f} ms per keystroke: {'met' if worst < TARGET_MS else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
