"""A long path in a notice wraps after its separators, at 80×24 and after every resize,
with no text lost (issue 22 item 13; breaking once for the width the widget had cut the
last line off after a resize)."""

from __future__ import annotations

from itertools import pairwise

from textual.geometry import Region

from pitui.ui.widgets.notice_line import NoticeLine
from tests.ui.harness import FeedSource, make_app, settle

PATH = (
    "~/.pitui/sessions/--tmp-pytest-of-root-pytest-570-test-a-cloned-session0-project--/"
    "2026-12-01T19-30-00-000Z_0123abcd-4567-89ef.jsonl"
)
TEXT = f"Forked to a new session: {PATH}"


def _shown(line: NoticeLine) -> list[str]:
    """The notice's lines as drawn (its laid-out height: a line cut off is missing)."""
    strips = line.render_lines(Region(0, 0, *line.outer_size))
    return [strip.text.strip() for strip in strips]  # without the padding


def _check(line: NoticeLine) -> None:
    shown = _shown(line)
    assert "".join(shown[1:]) == PATH and shown[0] == "Forked to a new session:", shown
    width = line.content_size.width
    for before, after in pairwise(shown[1:]):
        # After a separator (mid-name only where one name is wider than the line), and
        # only where the next part did not fit.
        assert before.endswith("/") or len(before) == width, shown
        assert len(before) + len(after.split("/")[0]) + 1 > width, shown


async def test_a_path_in_a_notice_breaks_at_separators_and_survives_resizes() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.notice(TEXT)
        await settle(pilot)
        line = app.query_one(NoticeLine)
        assert str(line.content) == TEXT
        _check(line)
        for width in (70, 100, 61, 130, 80):
            await pilot.resize_terminal(width, 24)
            await settle(pilot)
            _check(line)
