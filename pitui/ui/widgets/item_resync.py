"""Showing a whole new chat state in an item pane without tearing its widgets down.

A navigation, a sibling switch or a resume replaces the view. Clearing the pane and
mounting the new tail costs a widget's creation, styling and first render per item, in
both panes. But the two states share most of what is mounted: both branches share the
items up to the branch point (their ids are the same: ``m<seq>`` counts messages), and a
tool card keeps its call's id. And past the branch point the two tails are made of the
same kinds of items (a prompt, a reply, its thinking, its tool calls…). So a resync

- keeps the widget of every item the new state shows unchanged, in the same order (the
  shared part);
- gives the other mounted widgets the new items of their kind between those (``rebind``:
  the widget becomes what a widget made for that item would be; ``update_item`` when it
  is the same item changed), matched in order;
- creates widgets only for the rest, and removes the widgets left over.

The pane ends as a rebuilt one would (the tail window mounted, following the bottom).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from textual.widget import Widget

if TYPE_CHECKING:
    from pitui.ui.view.chat_state import ChatState
    from pitui.ui.widgets.conversation import ItemPane

Kind = Callable[[type], Any]
"""An item type's widget factory (None: the pane does not show it)."""

MATCH_CELLS = 4_000
"""The most (old widget, new item) pairs a gap's kind matching compares: a pane scrolled
far up may have hundreds of widgets mounted above the tail; only the nearest are offered."""


class Plan(NamedTuple):
    """What a resync does with the pane's widgets (for the pane and for tests)."""

    kept: dict[str, Widget]
    """New item id → the mounted widget that shows it now (kept by id or rebound)."""
    rebound: frozenset[str]
    """Ids of ``kept`` whose widget showed another item (``rebind``)."""
    stale: list[Widget]
    """Mounted widgets no new item takes: removed."""
    created: int
    """Widgets made for the rest of the window."""


async def resync(pane: ItemPane, state: ChatState) -> Plan:
    """Make ``pane`` show ``state`` as :meth:`ItemPane.clear` + :meth:`ItemPane.sync`
    of all its items would, reusing the widgets it has (by item id, then by kind)."""
    kind = _kinds(pane.factories())
    order = [item.id for item in state.items if kind(type(item)) is not None]
    window = order[-pane.TAIL_WINDOW :] if len(order) > pane.MAX_MOUNTED else order
    if window:
        from pitui.ui.widgets.item_styles import load_item_styles

        load_item_styles(pane.app)
    old_state = pane._state
    plan = _plan(pane, window, state, old_state, kind)
    pane._widgets = dict(plan.kept)
    pane._order, pane._known = order, dict.fromkeys(order)
    pane._first, pane._last, pane._state = len(order) - len(window), None, state
    pane._set_unseen(False)
    pane._following = True  # a rebuilt view opens at its end
    if plan.stale:
        await pane.remove_children(plan.stale)
    await _update_kept(pane, state, old_state, plan.rebound)
    await _mount_missing(pane, window, state)
    pane._earlier.display = pane._later.display = False
    if pane._first > 0:
        pane.open_at_end()
        await pane._show_earlier_marker()
        pane.after_layout.call(pane.fill_viewport)
    else:
        pane.anchor(False)
    pane.scroll_end(animate=False)
    return plan


def _kinds(factories: Mapping[type, Any]) -> Kind:
    """An item type's factory (its kind of widget), asked of ``factories`` once per type
    (not per item: a 10,000-message transcript has a handful of types, and the
    conversation's mapping imports its widgets on each lookup)."""
    known: dict[type, Any] = {}

    def kind(item_type: type) -> Any:
        if item_type not in known:
            known[item_type] = factories.get(item_type)
        return known[item_type]

    return kind


def _mounted_in_order(pane: ItemPane) -> list[str]:
    """The ids of the mounted widgets, in the order they are shown (the mounted window
    is ``_order[_first:end]``; a full scan if that ever does not hold)."""
    mounted = pane._widgets
    end = len(pane._order) if pane._last is None else pane._last
    ids = [i for i in pane._order[pane._first : end] if i in mounted]
    if len(ids) != len(mounted):
        ids = [i for i in pane._order if i in mounted]
    return ids


def _plan(
    pane: ItemPane,
    window: list[str],
    state: ChatState,
    old_state: ChatState | None,
    kind: Kind,
) -> Plan:
    """Which mounted widget shows which item of ``window``. A widget is never moved,
    only kept, rebound or removed: the matches keep both sequences' order."""
    mounted = pane._widgets
    old_ids = _mounted_in_order(pane)

    def old_kind(item_id: str) -> Any:
        item = old_state.get(item_id) if old_state is not None else None
        return None if item is None else kind(type(item))

    def new_kind(item_id: str) -> Any:
        item = state.get(item_id)
        return None if item is None else kind(type(item))

    old_kinds = [old_kind(i) for i in old_ids]
    new_kinds = [new_kind(i) for i in window]
    anchors = _same_items(old_ids, window, old_state, state)
    pairs: list[tuple[int, int]] = []  # (old position, new position)
    previous = (-1, -1)
    for anchor in [*anchors, (len(old_ids), len(window))]:
        old_gap = range(previous[0] + 1, anchor[0])
        new_gap = range(previous[1] + 1, anchor[1])
        pairs += _match_kinds(old_gap, old_kinds, new_gap, new_kinds, old_ids, mounted)
        pairs.append(anchor)
        previous = anchor
    pairs.pop()  # the sentinel
    kept = {window[new]: mounted[old_ids[old]] for old, new in sorted(pairs, key=lambda p: p[1])}
    used = {id(w) for w in kept.values()}
    stale = [w for w in mounted.values() if id(w) not in used]
    rebound = frozenset(window[new] for old, new in pairs if old_ids[old] != window[new])
    return Plan(kept, rebound, stale, len(window) - len(kept))


def _same_items(
    old_ids: list[str],
    window: list[str],
    old_state: ChatState | None,
    state: ChatState,
) -> list[tuple[int, int]]:
    """(old, new) positions of the mounted items the new state shows unchanged, as long
    as they come in the same order (they do: ids follow the messages). Only those anchor
    the plan: past the branch point an id names another branch's message (``m<seq>``
    counts messages on each branch), so a widget there is no better kept by its id than
    rebound to the item of its kind that comes in its place."""
    if old_state is None:
        return []
    where = {item_id: n for n, item_id in enumerate(window)}
    anchors: list[tuple[int, int]] = []
    last = -1
    for old, item_id in enumerate(old_ids):
        new = where.get(item_id)
        if new is None:
            continue
        before, now = old_state.get(item_id), state.get(item_id)
        if before is not now and before != now:
            continue
        if new < last:
            break
        anchors.append((old, new))
        last = new
    return anchors


def _match_kinds(
    old_gap: range,
    old_kinds: Sequence[Any],
    new_gap: range,
    new_kinds: Sequence[Any],
    old_ids: list[str],
    mounted: Mapping[str, Widget],
) -> list[tuple[int, int]]:
    """The most (old, new) pairs of the same kind of widget between two anchors, in
    order (a longest common subsequence of the kinds), for widgets that can be rebound."""
    if not old_gap or not new_gap:
        return []
    most_old = max(1, MATCH_CELLS // len(new_gap))
    olds = [
        o
        for o in old_gap[-most_old:]
        if old_kinds[o] is not None and hasattr(mounted[old_ids[o]], "rebind")
    ]
    news = list(new_gap)
    if not olds:
        return []
    # lengths[i][j]: the longest match of olds[i:] with news[j:].
    lengths = [[0] * (len(news) + 1) for _ in range(len(olds) + 1)]
    for i in range(len(olds) - 1, -1, -1):
        row, below, k = lengths[i], lengths[i + 1], old_kinds[olds[i]]
        for j in range(len(news) - 1, -1, -1):
            if k is new_kinds[news[j]]:
                row[j] = below[j + 1] + 1
            else:
                row[j] = max(below[j], row[j + 1])
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < len(olds) and j < len(news):
        if old_kinds[olds[i]] is new_kinds[news[j]]:
            pairs.append((olds[i], news[j]))
            i, j = i + 1, j + 1
        elif lengths[i + 1][j] >= lengths[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


async def _update_kept(
    pane: ItemPane, state: ChatState, old_state: ChatState | None, rebound: frozenset[str]
) -> None:
    for item_id, widget in pane._widgets.items():
        item = state.get(item_id)
        if item_id in rebound:
            await widget.rebind(item)  # type: ignore[attr-defined]
        else:
            old = old_state.get(item_id) if old_state is not None else None
            if item is not old and item != old:
                await widget.update_item(item)  # type: ignore[attr-defined]
        pane.decorate(item_id, widget)  # the pane's marks, as a new widget gets them


async def _mount_missing(pane: ItemPane, window: list[str], state: ChatState) -> None:
    """Create the window's widgets that were not kept, each run of them before the next
    kept widget (or at the end)."""
    kept = pane._widgets
    factories = pane.factories()
    run: list[Widget] = []
    fresh: dict[str, Widget] = {}
    for item_id in window:
        widget = kept.get(item_id)
        if widget is None:
            item = state.get(item_id)
            created = factories[type(item)](item)
            pane.decorate(item_id, created)
            fresh[item_id] = created
            run.append(created)
            continue
        if run:
            await pane.mount_all(run, before=widget)
            run = []
    if run:
        await pane.mount_all(run)
    pane._widgets = {item_id: kept.get(item_id) or fresh[item_id] for item_id in window}
