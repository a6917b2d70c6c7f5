"""pi's numbered display diff: padding, 4 context lines, elided runs."""

from __future__ import annotations

from pitui.core.tools.edit_diff import (
    detect_line_ending,
    generate_diff_string,
    normalize_for_fuzzy_match,
)


def numbered(n: int) -> list[str]:
    return [f"l{i}" for i in range(1, n + 1)]


def test_context_and_ellipsis() -> None:
    old = numbered(20)
    new = list(old)
    new[9] = "CHANGED"
    diff, first = generate_diff_string("\n".join(old), "\n".join(new))
    assert first == 10
    assert diff.split("\n") == [
        "    ...",
        "  6 l6",
        "  7 l7",
        "  8 l8",
        "  9 l9",
        "-10 l10",
        "+10 CHANGED",
        " 11 l11",
        " 12 l12",
        " 13 l13",
        " 14 l14",
        "    ...",
    ]


def test_long_gap_between_changes_is_elided() -> None:
    old = numbered(30)
    new = list(old)
    new[1] = "A"
    new[25] = "B"
    diff, first = generate_diff_string("\n".join(old), "\n".join(new))
    assert first == 2
    expected = ["  1 l1", "- 2 l2", "+ 2 A", "  3 l3", "  4 l4", "  5 l5", "  6 l6", "    ..."]
    expected += [" 22 l22", " 23 l23", " 24 l24", " 25 l25", "-26 l26", "+26 B"]
    expected += [" 27 l27", " 28 l28", " 29 l29", " 30 l30"]
    assert diff.split("\n") == expected


def test_insertion_line_numbers() -> None:
    diff, first = generate_diff_string("a\nb\n", "a\nx\nb\n")
    assert first == 2
    # Context lines carry the old file's numbers, as in pi.
    assert diff.split("\n") == [" 1 a", "+2 x", " 2 b"]


def test_line_ending_detection() -> None:
    assert detect_line_ending("a\r\nb\n") == "\r\n"
    assert detect_line_ending("a\nb\r\n") == "\n"
    assert detect_line_ending("no newline") == "\n"


def test_fuzzy_normal_form() -> None:
    text = "\u201cq\u201d \u2018s\u2019 a\u2014b\u00a0c  \nﬁ"
    assert normalize_for_fuzzy_match(text) == "\"q\" 's' a-b c\nfi"
