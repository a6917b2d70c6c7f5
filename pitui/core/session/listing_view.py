"""The rows of the resume picker (pi's session selector, PI_SPEC §9.8), without a UI.

Sessions are shown threaded (forks nested under the session named in their header's
``parentSession``, newest first at every level), by most recent activity, or by search
relevance; a toggle keeps only named sessions. With a query, the threaded order becomes
the relevance order (as pi: a tree of matches would hide why they matched) and the
recent order keeps its order, filtered. A session's message text comes from a lookup
the caller fills (it is read lazily, see :mod:`.listing_ops`); a session whose text is
not known yet is matched on its id, name, first message and cwd.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pitui.core.session.listing import SessionInfo
from pitui.core.session.listing_search import SearchQuery, match_score, search_text

SortMode = Literal["threaded", "recent", "relevance"]
NameFilter = Literal["all", "named"]
SORT_ORDER: tuple[SortMode, ...] = ("threaded", "recent", "relevance")
SORT_LABELS: dict[SortMode, str] = {
    "threaded": "Threaded",
    "recent": "Recent",
    "relevance": "Fuzzy",
}


def next_sort(mode: SortMode) -> SortMode:
    """threaded → recent → relevance → threaded (pi's Ctrl+S)."""
    return SORT_ORDER[(SORT_ORDER.index(mode) + 1) % len(SORT_ORDER)]


@dataclass(frozen=True, slots=True)
class PickerRow:
    """One line of the picker: a session, its depth in the fork tree and tree prefix."""

    info: SessionInfo
    depth: int = 0
    prefix: str = ""
    """``│  ├─ `` style connectors (empty at depth 0 and in flat orders)."""


def is_named(info: SessionInfo) -> bool:
    """The session has a non-blank name."""
    return bool(info.name and info.name.strip())


def _threaded(sessions: Sequence[SessionInfo]) -> list[PickerRow]:
    by_path = {info.path: info for info in sessions}
    children: dict[str, list[SessionInfo]] = {}
    roots: list[SessionInfo] = []
    for info in sessions:
        parent = info.parent_session_path
        if parent and parent in by_path and parent != info.path:
            children.setdefault(parent, []).append(info)
        else:
            roots.append(info)
    rows: list[PickerRow] = []
    seen: set[str] = set()

    def newest_first(items: list[SessionInfo]) -> list[SessionInfo]:
        return sorted(items, key=lambda i: i.modified_ms, reverse=True)

    def walk(info: SessionInfo, depth: int, gutter: str, last: bool) -> None:
        if info.path in seen:  # a parentSession cycle: show each session once
            return
        seen.add(info.path)
        rows.append(PickerRow(info, depth, gutter + ("└─ " if last else "├─ ") if depth else ""))
        kids = children.get(info.path)
        if not kids:
            return
        # A gutter per level; "│" only below non-root levels (as pi draws them).
        below = gutter + ("│  " if depth and not last else "   ")
        kids = newest_first(kids)
        for index, child in enumerate(kids):
            walk(child, depth + 1, below if depth else "   ", index == len(kids) - 1)

    ordered = newest_first(roots)
    for index, info in enumerate(ordered):
        walk(info, 0, "", index == len(ordered) - 1)
    for info in newest_first([i for i in sessions if i.path not in seen]):  # cycles only
        walk(info, 0, "", True)
    return rows


def picker_rows(
    sessions: Sequence[SessionInfo],
    query: SearchQuery,
    sort: SortMode = "threaded",
    name_filter: NameFilter = "all",
    messages_text: Callable[[SessionInfo], str | None] = lambda _: None,
) -> list[PickerRow]:
    """The picker's rows for these sessions (pi's ``filterSessions``)."""
    pool = [i for i in sessions if is_named(i)] if name_filter == "named" else list(sessions)
    if query.empty:
        if sort == "threaded":
            return _threaded(pool)
        return [PickerRow(i) for i in sorted(pool, key=lambda i: i.modified_ms, reverse=True)]
    scored: list[tuple[float, SessionInfo]] = []
    for info in pool:
        text = messages_text(info)
        score = match_score(query, search_text(info, info.first_message if text is None else text))
        if score is not None:
            scored.append((score, info))
    if sort == "recent":
        scored.sort(key=lambda pair: pair[1].modified_ms, reverse=True)
    else:
        scored.sort(key=lambda pair: (pair[0], -pair[1].modified_ms))
    return [PickerRow(info) for _, info in scored]


def format_age(modified_ms: int, now_ms: int) -> str:
    """pi's short age: ``now``, ``5m``, ``3h``, ``2d``, ``1w``, ``4mo``, ``1y``."""
    minutes = max(0, now_ms - modified_ms) // 60_000
    hours, days = minutes // 60, minutes // 1440
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    if hours < 24:
        return f"{hours}h"
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def row_title(info: SessionInfo) -> str:
    """Name, else first message, on one line (control characters as spaces)."""
    if info.error is not None:
        return f"{os.path.basename(info.path)}: {info.error}"
    text = info.name or info.first_message
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def row_details(info: SessionInfo, now_ms: int) -> str:
    """What a row shows right-aligned (after the cwd in the all-folders scope): message
    count and age."""
    if info.error is not None:
        return "unreadable"
    return f"{info.message_count} {format_age(info.modified_ms, now_ms)}"
