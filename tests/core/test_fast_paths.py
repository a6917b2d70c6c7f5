"""The fast paths of the per-row text helpers give what their general paths give.

A 100k-entry context report or tree runs these once per row, so each has a shortcut for
the usual case (plain printable text). The shortcut must never change a result.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core.context_unsent import flat_inert
from pitui.core.sanitize import inert, json_inert, json_inert_bytes

_TRICKY = list(" \t\n\r\x0b\x0c\x1b\x1c\x1f\x7f\x85\x9b\xa0\u2003\u2028\ufff9é…[]0;mab\\")
_text = st.text(alphabet=st.sampled_from(_TRICKY) | st.characters(), max_size=120)


@settings(max_examples=600, deadline=None)
@given(_text)
def test_inert_shortcut_changes_nothing(text: str) -> None:
    # A trailing NUL forces the general path (it is removed and ends no sequence).
    assert inert(text) == inert(text + "\x00")
    assert inert(text, expand_tabs=False) == inert(text + "\x00", expand_tabs=False)


@settings(max_examples=600, deadline=None)
@given(_text, st.integers(2, 100))
def test_flat_inert_shortcut_equals_split_and_join(text: str, width: int) -> None:
    line = " ".join(text.split())
    expected = line if len(line) <= width else line[: width - 1] + "…"
    assert flat_inert(text, width) == expected


@settings(max_examples=300, deadline=None)
@given(_text)
def test_json_inert_bytes_shortcut_equals_the_text_version(text: str) -> None:
    if any("\ud800" <= c <= "\udfff" for c in text):
        return  # not text UTF-8 can carry
    data = text.encode("utf-8")
    assert json_inert_bytes(data) == json_inert(text).encode("utf-8")
