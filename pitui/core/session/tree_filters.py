"""The tree's filters and its ``(i/n)`` footer: standard library only, so the UI can draw the
empty tree of a new session in its first frame, before the session machinery is imported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

FilterMode: TypeAlias = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS: Mapping[FilterMode, str] = {
    "default": "",
    "no-tools": " [no-tools]",
    "user-only": " [user]",
    "labeled-only": " [labeled]",
    "all": " [all]",
}


def position_footer(selected: int, count: int, mode: FilterMode) -> str:
    """pi's ``(i/n)`` line with the filter tag."""
    return f"({min(selected + 1, count)}/{count}){FILTER_TAGS[mode]}"
