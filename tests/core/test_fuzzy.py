"""pi's fuzzy match: the str.find walk equals pi's character loop."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pitui.core.fuzzy import _score, fuzzy_score


def _pi_score(query: str, text: str) -> float | None:
    """pi's loop over every character of the text, as written in pi-tui."""
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    q, score, last, streak = 0, 0.0, -1, 0
    for i, char in enumerate(text):
        if q == len(query):
            break
        if char != query[q]:
            continue
        if last == i - 1:
            streak += 1
            score -= streak * 5
        else:
            streak = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or text[i - 1] in " \t-_./:":
            score -= 10
        score += i * 0.1
        last = i
        q += 1
    return score if q == len(query) else None


_CHARS = st.sampled_from("ab c-1._:/\t2Zz")


@given(st.text(_CHARS, max_size=4), st.text(_CHARS, max_size=16))
def test_find_walk_equals_pi_loop(query: str, text: str) -> None:
    assert _score(query, text) == _pi_score(query, text)


def test_a_plain_match_is_scored_as_pi_does() -> None:
    assert fuzzy_score("gpt", "GPT-4o") == _pi_score("gpt", "gpt-4o")
    assert fuzzy_score("4o", "gpt-4o") is not None and fuzzy_score("zz", "gpt-4o") is None
