"""Output is text, never terminal control."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pitui.core.sanitize import inert
from pitui.ui.view.format import format_tokens


def test_osc52_clipboard_write_removed() -> None:
    assert inert("a\x1b]52;c;SGVsbG8=\x07b") == "ab"
    assert inert("a\x1b]52;c;SGVsbG8=\x1b\\b") == "ab"
    assert inert("a\x1b]52;c;unterminated") == "a"


def test_cursor_movement_and_colours_removed() -> None:
    assert inert("\x1b[2J\x1b[H\x1b[5Aup\x1b[1;31mred\x1b[0m") == "upred"
    assert inert("x\x1b7y\x1b8z\x1bcw") == "xyzw"
    assert inert("\x9b2Jc1") == "c1"


def test_controls_and_line_endings() -> None:
    assert inert("a\r\nb\rc\td\x00\x08e\x7f") == "a\nbc    de"


@given(st.text())
def test_inert_output_has_no_controls(text: str) -> None:
    out = inert(text)
    assert not any(ord(ch) < 32 and ch != "\n" for ch in out)
    assert not any(0x7F <= ord(ch) <= 0x9F for ch in out)


def test_format_tokens_like_pi() -> None:
    cases = {999: "999", 1234: "1.2k", 12_345: "12k", 1_234_567: "1.2M", 12_345_678: "12M"}
    for count, expected in cases.items():
        assert format_tokens(count) == expected
