"""``pitui --list-models [SEARCH]``: the model catalogue and what is usable now.

Like pi's ``--list-models`` (same columns, token counts as ``200K`` / ``1M``, pi's fuzzy
search over ``provider id``), plus a ``usable`` column: ``key`` when a key is configured,
``demo`` for the offline model, ``ollama`` for models of a running local Ollama, and
``no`` otherwise. Every model is listed, not only the usable ones.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Callable
from typing import TypeVar

from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model
from pitui.errors import PituiError

T = TypeVar("T")
COLUMNS = ("provider", "model", "context", "max-out", "thinking", "images", "usable")


def run(args: argparse.Namespace) -> int:
    """Print the catalogue filtered by ``args.list_models``; returns the exit code."""
    search = getattr(args, "list_models", None) or ""
    try:
        registry = asyncio.run(_load())
    except PituiError as exc:
        print(f"pitui: {exc.title}: {exc}", file=sys.stderr)
        return 1
    if registry.error is not None:
        print(f"pitui: warning: {registry.error}", file=sys.stderr)
    print(render(registry, search))
    return 0


async def _load() -> ModelRegistry:
    registry = await ModelRegistry.load()
    await registry.refresh_ollama()
    return registry


def render(registry: ModelRegistry, search: str = "") -> str:
    """The table as text (or a one-line message when nothing matches)."""
    models = registry.all()
    if search.strip():
        models = fuzzy_filter(models, search, lambda m: f"{m.provider} {m.id}")
        if not models:
            return f'No models matching "{search}"'
    models.sort(key=lambda m: (m.provider, m.id))
    rows = [_row(registry, m) for m in models]
    widths = [max(len(COLUMNS[i]), *(len(r[i]) for r in rows)) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in [COLUMNS, *rows]]  # fmt: skip
    return "\n".join(lines)


def _row(registry: ModelRegistry, model: Model) -> tuple[str, ...]:
    return (
        model.provider,
        model.id,
        format_tokens(model.context_window),
        format_tokens(model.max_tokens),
        "yes" if model.reasoning else "no",
        "yes" if "image" in model.input else "no",
        registry.usable_reason(model) or "no",
    )


def format_tokens(count: int) -> str:
    """pi's token count format: ``200000`` → ``200K``, ``1047576`` → ``1.0M``."""
    for size, suffix in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            value = count / size
            return f"{int(value)}{suffix}" if value.is_integer() else f"{value:.1f}{suffix}"
    return str(count)


# --------------------------------------------------------------------------- fuzzy search


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
    q = 0
    score = 0.0
    last = -1
    streak = 0
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
