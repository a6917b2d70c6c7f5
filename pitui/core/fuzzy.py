"""pi's fuzzy matcher (model selector, ``--list-models`` search, command completion)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def fuzzy_score(query: str, text: str) -> float | None:
    """pi's fuzzy match: query characters in order; lower is better, ``None`` = no match."""
    query, text = query.lower(), text.lower()
    score = _score(query, text)
    if score is not None:
        return score
    swapped = re.fullmatch(r"([a-z]+)([0-9]+)|([0-9]+)([a-z]+)", query)
    if swapped is None:
        return None
    letters_first = swapped[1] is not None
    alt = swapped[2] + swapped[1] if letters_first else swapped[4] + swapped[3]
    alt_score = _score(alt, text)
    return None if alt_score is None else alt_score + 5


def _score(query: str, text: str) -> float | None:
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    score = 0.0
    last = -1
    streak = 0
    # pi matches each query character at its first occurrence after the previous one:
    # str.find does that walk at C speed (session search runs this over whole transcripts).
    for char in query:
        i = text.find(char, last + 1)
        if i < 0:
            return None
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
    return score


def fuzzy_filter(items: list[T], query: str, text_of: Callable[[T], str]) -> list[T]:
    """Items matching every space-separated token of ``query``, best first (stable)."""
    tokens = query.split()
    if not tokens:
        return list(items)
    scored: list[tuple[float, int, T]] = []
    for position, item in enumerate(items):
        text = text_of(item)
        scores = [fuzzy_score(token, text) for token in tokens]
        if all(s is not None for s in scores):
            scored.append((sum(s for s in scores if s is not None), position, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
