"""Truncation helpers: pi's limits, size format, head/tail edge cases."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pitui.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    byte_len,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_format_size() -> None:
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(DEFAULT_MAX_BYTES) == "50.0KB"
    assert format_size(1536) == "1.5KB"
    assert format_size(1024 * 1024) == "1.0MB"


def test_no_truncation_keeps_everything() -> None:
    r = truncate_head("a\nb\n")
    assert not r.truncated
    assert r.truncated_by is None
    assert r.total_lines == 3  # a trailing newline yields a final empty line
    assert r.content == "a\nb\n"
    assert r.to_json_dict()["truncatedBy"] is None


def test_head_by_lines() -> None:
    content = "\n".join(f"L{i}" for i in range(1, 2501))
    r = truncate_head(content)
    assert r.truncated and r.truncated_by == "lines"
    assert r.output_lines == 2000
    assert r.content.splitlines()[-1] == "L2000"
    data = r.to_json_dict()
    assert data["truncatedBy"] == "lines"
    assert data["totalLines"] == 2500
    assert data["maxBytes"] == DEFAULT_MAX_BYTES
    assert set(data) == {
        "content",
        "truncated",
        "truncatedBy",
        "totalLines",
        "totalBytes",
        "outputLines",
        "outputBytes",
        "lastLinePartial",
        "firstLineExceedsLimit",
        "maxLines",
        "maxBytes",
    }


def test_head_by_bytes_keeps_whole_lines() -> None:
    content = "\n".join("x" * 100 for _ in range(1000))
    r = truncate_head(content)
    assert r.truncated_by == "bytes"
    assert r.output_bytes <= DEFAULT_MAX_BYTES
    assert all(len(line) == 100 for line in r.content.split("\n"))


def test_head_first_line_too_long() -> None:
    r = truncate_head("y" * (DEFAULT_MAX_BYTES + 1) + "\nshort")
    assert r.first_line_exceeds_limit
    assert r.content == ""
    assert r.truncated_by == "bytes"


def test_tail_keeps_last_lines() -> None:
    content = "\n".join(f"L{i}" for i in range(1, 3001))
    r = truncate_tail(content)
    assert r.truncated_by == "lines"
    assert r.content.split("\n")[0] == "L1001"
    assert r.content.endswith("L3000")


def test_tail_partial_last_line_cut_on_char_boundary() -> None:
    line = "é" * DEFAULT_MAX_BYTES  # 2 bytes each
    r = truncate_tail("first\n" + line)
    assert r.last_line_partial
    assert r.truncated_by == "bytes"
    assert r.output_bytes <= DEFAULT_MAX_BYTES
    assert set(r.content) == {"é"}


def test_truncate_line() -> None:
    assert truncate_line("abc") == ("abc", False)
    cut, was = truncate_line("z" * 600)
    assert was and cut == "z" * 500 + "... [truncated]"


@given(
    st.text(alphabet=st.sampled_from("ab\né"), max_size=400),
    st.integers(1, 30),
    st.integers(1, 200),
)
def test_head_and_tail_respect_limits(content: str, max_lines: int, max_bytes: int) -> None:
    for fn in (truncate_head, truncate_tail):
        r = fn(content, max_lines=max_lines, max_bytes=max_bytes)
        assert r.output_lines <= max_lines
        assert byte_len(r.content) <= max_bytes
        if not r.truncated:
            assert r.content == content
    head = truncate_head(content, max_lines=max_lines, max_bytes=max_bytes)
    assert content.startswith(head.content)
    tail = truncate_tail(content, max_lines=max_lines, max_bytes=max_bytes)
    assert content.endswith(tail.content)
