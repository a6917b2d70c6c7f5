"""Where a notice's lines break (issue 22 item 13): at spaces, and inside a long path
after its separators."""

from __future__ import annotations

from itertools import pairwise

from pitui.ui.view.path_wrap import line_starts

PATH = "~/.pitui/sessions/--home-me-proj--/2026-12-01T19-30-00-000Z_0123abcd.jsonl"


def _lines(text: str, width: int) -> list[str]:
    starts = [0, *line_starts(text, width), len(text)]
    return [text[a:b].rstrip() for a, b in pairwise(starts)]


def test_a_path_breaks_after_a_separator() -> None:
    assert _lines(f"Forked to a new session: {PATH}", 40) == [
        "Forked to a new session:",
        "~/.pitui/sessions/--home-me-proj--/",
        "2026-12-01T19-30-00-000Z_0123abcd.jsonl",
    ]


def test_text_that_fits_or_an_unknown_width_is_left_alone() -> None:
    assert line_starts(PATH, 0) == []
    assert line_starts(PATH, 200) == []
    assert line_starts(PATH, len(PATH)) == []


def test_a_name_wider_than_the_line_is_cut_as_a_last_resort() -> None:
    assert _lines("/a/" + "x" * 25, 10) == ["/a/", "x" * 10, "x" * 10, "x" * 5]


def test_nothing_is_lost_and_no_line_is_too_wide() -> None:
    texts = [
        "word " * 30,
        f"Cloned to a new session: {PATH} (restore files with /diff)",
        f"{PATH} {PATH}",
        "a" * 7 + "/" + "b" * 30 + "/c",
        "  leading spaces and a/b/c/d/e/f/g/h/i/j/k",
    ]
    for text in texts:
        for width in range(4, 90):
            starts = [0, *line_starts(text, width), len(text)]
            assert starts == sorted(set(starts)), (text, width)
            pieces = [text[a:b] for a, b in pairwise(starts)]
            assert "".join(pieces) == text
            assert all(len(piece.rstrip()) <= width for piece in pieces), (text, width, pieces)
