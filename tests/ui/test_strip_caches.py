"""pitui/ui/strip_caches.py: the lean strip cache answers as Textual's does, goes in for the
Textual installed (its digest is known), and a screen draws the same with it."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator

import pytest
from textual.app import App, ComposeResult
from textual.cache import FIFOCache
from textual.containers import Horizontal, VerticalScroll
from textual.strip import Strip
from textual.widgets import Markdown, Static

from pitui.ui import strip_caches
from pitui.ui.strip_caches import LeanFIFOCache


@pytest.fixture
def lean() -> Iterator[None]:
    assert strip_caches.install()
    try:
        yield
    finally:
        strip_caches.uninstall()


def test_installs_for_this_textual_in_a_fresh_interpreter() -> None:
    # As the TUI does it (pitui.cli): a new Textual or Python needs its digest added.
    code = (
        "from pitui.ui import strip_caches; import textual.strip;"
        "assert strip_caches.install(), strip_caches.fifo_cache_digest();"
        "assert textual.strip.Strip([]) ._crop_cache.__class__ is strip_caches.LeanFIFOCache"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_answers_as_textuals_cache_through_random_use() -> None:
    rng = random.Random(26)
    for maxsize in (0, 1, 4, 16):
        theirs: FIFOCache[int, int] = FIFOCache(maxsize)
        mine = LeanFIFOCache(maxsize)
        for step in range(2_000):
            key, action = rng.randrange(24), rng.random()
            if action < 0.4:
                theirs[key] = mine[key] = step
            elif action < 0.45:
                theirs.set(key, step)
                mine.set(key, step)
            elif action < 0.47:
                theirs.clear()
                mine.clear()
            elif action < 0.7:
                assert theirs.get(key, -1) == mine.get(key, -1)
            else:
                found = [cache.__getitem__ if key in cache else None for cache in (theirs, mine)]
                assert (found[0] is None) == (found[1] is None)
                if found[0] is not None and found[1] is not None:
                    assert found[0](key) == found[1](key)
            assert list(theirs.keys()) == list(mine.keys())
            assert (len(theirs), bool(theirs)) == (len(mine), bool(mine))
            assert (theirs.hits, theirs.misses) == (mine.hits, mine.misses)


def test_an_empty_cache_holds_no_dict_of_its_own() -> None:
    first, second = LeanFIFOCache(4), LeanFIFOCache(4)
    assert first._cache is second._cache and not first._cache
    with pytest.raises(KeyError):
        first["missing"]
    first["key"] = 1
    assert dict(first._cache) == {"key": 1} and not second._cache
    first.clear()
    assert first._cache is second._cache


class _Screenful(App[None]):
    CSS = "Static { border: round $accent; } #side { width: 30; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll():
                for n in range(12):
                    yield Static(f"[b]line {n}[/b] " + "word " * (n * 5))
                yield Markdown("# Heading\n\n- one\n- `two`\n\n```python\nprint(1)\n```\n")
            yield Static("side pane " * 20, id="side")


async def _screen() -> str:
    app = _Screenful()
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        await pilot.press("pagedown")
        await pilot.pause()
        return app.export_screenshot()


async def test_a_screen_draws_the_same_with_lean_caches() -> None:
    textuals = await _screen()
    assert strip_caches.install()
    try:
        assert Strip([])._crop_cache.__class__ is LeanFIFOCache
        mine = await _screen()
    finally:
        strip_caches.uninstall()
    assert mine == textuals


def test_strip_operations_agree(lean: None) -> None:
    from rich.segment import Segment
    from rich.style import Style

    def ops(strip: Strip) -> list[object]:
        return [
            strip.crop(2, 9).text,
            strip.crop(2, 9).text,  # from the cache now
            strip.crop_extend(1, 30, Style(bold=True)).text,
            [part.text for part in strip.divide([3, 8, 20])],
            strip.apply_style(Style(italic=True)).cell_length,
            strip.extend_cell_length(40).cell_length,
            strip.simplify().text,
        ]

    segments = [Segment("hello ", Style(bold=True)), Segment("world", Style(color="red"))]
    mine = ops(Strip(segments))
    strip_caches.uninstall()
    assert ops(Strip(segments)) == mine
