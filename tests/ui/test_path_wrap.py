"""A notice's long path breaks at its separators (issue 22 item 13)."""

from __future__ import annotations

from pitui.ui.view.path_wrap import wrap_paths

PATH = "~/.pitui/sessions/--home-me-proj--/2026-12-01T19-30-00-000Z_0123abcd.jsonl"


def test_a_path_breaks_after_a_separator() -> None:
    lines = wrap_paths(f"Forked to a new session: {PATH}", 40).split("\n")
    assert lines == [
        "Forked to a new session:",
        "~/.pitui/sessions/--home-me-proj--/",
        "2026-12-01T19-30-00-000Z_0123abcd.jsonl",
    ]


def test_text_that_fits_or_an_unknown_width_is_left_alone() -> None:
    assert wrap_paths(PATH, 0) == PATH
    assert wrap_paths(PATH, 200) == PATH


def test_a_name_wider_than_the_line_is_cut_as_a_last_resort() -> None:
    lines = wrap_paths("/a/" + "x" * 25, 10).split("\n")
    assert lines == ["/a/", "x" * 10, "x" * 10, "x" * 5]
    assert all(len(line) <= 10 for line in wrap_paths("word " * 30, 12).split("\n"))
