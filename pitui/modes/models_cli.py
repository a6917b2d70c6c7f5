"""``pitui --list-models [SEARCH]``: the model catalogue and what is usable now.

Like pi's ``--list-models`` (same columns, token counts as ``200K`` / ``1M``, pi's fuzzy
search over ``provider id``), plus a ``usable`` column: ``key`` when a key is configured,
``demo`` for the offline model, ``ollama`` for models of a running local Ollama, and
``no`` otherwise. Every model is listed, not only the usable ones.
"""

from __future__ import annotations

import argparse
import sys

from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model
from pitui.core.blocking import run_blocking
from pitui.core.fuzzy import fuzzy_filter, fuzzy_score
from pitui.errors import PituiError

__all__ = ["format_tokens", "fuzzy_filter", "fuzzy_score", "render", "run"]

COLUMNS = ("provider", "model", "context", "max-out", "thinking", "images", "usable")


def run(args: argparse.Namespace) -> int:
    """Print the catalogue filtered by ``args.list_models``; returns the exit code."""
    search = getattr(args, "list_models", None) or ""
    try:
        registry = run_blocking(_load())
    except PituiError as exc:
        print(f"pitui: {exc.title}: {exc}", file=sys.stderr)
        return 1
    for warning in registry.warnings():
        print(f"pitui: warning: {warning}", file=sys.stderr)
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
