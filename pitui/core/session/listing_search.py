"""Search in the session list (pi's session-selector search, PI_SPEC §9.8).

A query is ``re:<regex>`` (case-insensitive), or tokens: ``"a phrase"`` (matched in the
text with whitespace collapsed, case-insensitive) and other words (fuzzy, as pi's
model selector). Every token must match. The searched text of a session is its id, its
name, the text of all its user and assistant messages and its cwd. Lower scores are
better.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pitui.core.fuzzy import fuzzy_score
from pitui.core.session.listing import SessionInfo


@dataclass(frozen=True, slots=True)
class SearchToken:
    """A word (fuzzy) or a quoted phrase (exact, whitespace collapsed)."""

    kind: Literal["fuzzy", "phrase"]
    value: str


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A parsed query; an ``error`` (bad regex) matches nothing."""

    tokens: tuple[SearchToken, ...] = ()
    regex: re.Pattern[str] | None = None
    error: str | None = None
    mode: Literal["tokens", "regex"] = "tokens"
    text: str = field(default="", compare=False)

    @property
    def empty(self) -> bool:
        """No query at all: every session matches."""
        return self.mode == "tokens" and not self.tokens


def parse_search_query(query: str) -> SearchQuery:
    """pi's ``parseSearchQuery``: regex mode, or words and ``"phrases"`` (an unbalanced
    quote makes every whitespace-separated word fuzzy)."""
    trimmed = query.strip()
    if not trimmed:
        return SearchQuery(text=query)
    if trimmed.startswith("re:"):
        pattern = trimmed[3:].strip()
        if not pattern:
            return SearchQuery(mode="regex", error="Empty regex", text=query)
        try:
            return SearchQuery(mode="regex", regex=re.compile(pattern, re.IGNORECASE), text=query)
        except re.error as exc:
            return SearchQuery(mode="regex", error=str(exc), text=query)
    tokens: list[SearchToken] = []
    buffer = ""
    in_quote = False

    def flush(kind: Literal["fuzzy", "phrase"]) -> None:
        nonlocal buffer
        value, buffer = buffer.strip(), ""
        if value:
            tokens.append(SearchToken(kind, value))

    for char in trimmed:
        if char == '"':
            flush("phrase" if in_quote else "fuzzy")
            in_quote = not in_quote
        elif not in_quote and char.isspace():
            flush("fuzzy")
        else:
            buffer += char
    if in_quote:  # unbalanced: plain words
        words = (SearchToken("fuzzy", word) for word in trimmed.split())
        return SearchQuery(tokens=tuple(words), text=query)
    flush("fuzzy")
    return SearchQuery(tokens=tuple(tokens), text=query)


def search_text(info: SessionInfo, messages_text: str) -> str:
    """What a query is matched against (pi's order: id, name, messages, cwd)."""
    return f"{info.id} {info.name or ''} {messages_text} {info.cwd}"


def _collapse(text: str) -> str:
    return " ".join(text.lower().split())


def match_score(query: SearchQuery, text: str) -> float | None:
    """pi's ``matchSession``: the score (lower is better), None when it does not match."""
    if query.error is not None:
        return None
    if query.regex is not None:
        found = query.regex.search(text)
        return None if found is None else found.start() * 0.1
    total = 0.0
    collapsed: str | None = None
    for token in query.tokens:
        if token.kind == "phrase":
            collapsed = _collapse(text) if collapsed is None else collapsed
            phrase = _collapse(token.value)
            if not phrase:
                continue
            index = collapsed.find(phrase)
            if index < 0:
                return None
            total += index * 0.1
            continue
        score = fuzzy_score(token.value, text)
        if score is None:
            return None
        total += score
    return total
