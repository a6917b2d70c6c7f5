"""lazy_pattern: a module-level regex that compiles on first use and then acts as one."""

from __future__ import annotations

import re

from pitui.lazy_pattern import lazy_pattern


def test_it_compiles_on_first_use_and_answers_as_the_compiled_pattern() -> None:
    pattern = lazy_pattern(r"(\d+)-(\d+)", re.ASCII)
    assert pattern.__dict__["_compiled"] is None  # nothing compiled yet
    match = pattern.fullmatch("12-34")
    assert match is not None and match.groups() == ("12", "34")
    assert pattern.sub(r"\2-\1", "1-2 and 3-4") == "2-1 and 4-3"
    assert pattern.pattern == r"(\d+)-(\d+)" and pattern.flags & re.ASCII
    assert pattern.findall("5-6") == [("5", "6")]
    assert pattern.search("no digits") is None


def test_bytes_patterns_work_too() -> None:
    pattern = lazy_pattern(rb"\x7f|\xc2[\x80-\x9f]")
    assert pattern.search(b"a\xc2\x9bb") is not None
    assert pattern.search(b"plain") is None
