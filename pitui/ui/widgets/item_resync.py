"""Showing a whole new chat state in an item pane without tearing its widgets down.

A navigation, a sibling switch or a resume replaces the view. Clearing the pane and
mounting the new tail costs a widget's creation, styling and first render per item, in
both panes. But the two states share most of what is mounted: both branches share the
items up to the branch point (their ids are the same: ``m<seq>`` counts messages), and a
tool card keeps its call's id. So a resync keeps the widget of every item that is
unchanged, gives a widget of the same kind the new item of its id (``update_item``), and
creates widgets only for the rest; the pane ends as a rebuilt one would (the tail window
mounted, following the bottom).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

if TYPE_CHECKING:
    from pitui.ui.view.chat_state import ChatState
    from pitui.ui.widgets.conversation import ItemPane


async def resync(pane: ItemPane, state: ChatState) -> None:
    """Make ``pane`` show ``state`` as :meth:`ItemPane.clear` + :meth:`ItemPane.sync`
    of all its items would, reusing the widgets it has by item id."""
    factories = pane.factories()
    shown = _kinds_shown(factories)
    order = [item.id for item in state.items if shown(type(item))]
    window = order[-pane.TAIL_WINDOW :] if len(order) > pane.MAX_MOUNTED else order
    if window:
        from pitui.ui.widgets.item_styles import load_item_styles

        load_item_styles(pane.app)
    old_state = pane._state
    reusable = _reusable(pane, window, state, old_state, factories)
    stale = [w for item_id, w in pane._widgets.items() if item_id not in reusable]
    pane._widgets = {item_id: pane._widgets[item_id] for item_id in window if item_id in reusable}
    pane._order, pane._known = order, dict.fromkeys(order)
    pane._first, pane._last, pane._state = len(order) - len(window), None, state
    pane._set_unseen(False)
    pane._following = True  # a rebuilt view opens at its end
    if stale:
        await pane.remove_children(stale)
    await _update_kept(pane, state, old_state)
    await _mount_missing(pane, window, state)
    pane._earlier.display = pane._later.display = False
    if pane._first > 0:
        pane.open_at_end()
        await pane._show_earlier_marker()
        pane.call_after_refresh(pane.fill_viewport)
    else:
        pane.anchor(False)
    pane.scroll_end(animate=False)


def _kinds_shown(factories: Mapping[type, Any]) -> Callable[[type], bool]:
    """Whether the pane shows an item type, asked of ``factories`` once per type (not per
    item: a 10,000-message transcript has a handful of types, and the conversation's
    mapping imports its widgets on each lookup)."""
    known: dict[type, bool] = {}

    def shown(kind: type) -> bool:
        answer = known.get(kind)
        if answer is None:
            answer = known[kind] = kind in factories
        return answer

    return shown


def _reusable(
    pane: ItemPane,
    window: list[str],
    state: ChatState,
    old_state: ChatState | None,
    factories: Mapping[type, Any],
) -> set[str]:
    """Ids of the window whose mounted widget can stay: same kind of item, in the same
    relative order as before (a widget is never moved, only kept, updated or replaced)."""
    mounted = pane._widgets
    candidates = [
        item_id
        for item_id in window
        if item_id in mounted and _same_kind(old_state, state, item_id, factories)
    ]
    before = [item_id for item_id in pane._order if item_id in set(candidates)]
    kept: set[str] = set()
    for new, old in zip(candidates, before, strict=False):
        if new != old:
            break
        kept.add(new)
    return kept


def _same_kind(
    old_state: ChatState | None, state: ChatState, item_id: str, factories: Mapping[type, Any]
) -> bool:
    old = old_state.get(item_id) if old_state is not None else None
    new = state.get(item_id)
    return (
        old is not None and new is not None and factories.get(type(old)) is factories.get(type(new))
    )


async def _update_kept(pane: ItemPane, state: ChatState, old_state: ChatState | None) -> None:
    for item_id, widget in pane._widgets.items():
        item = state.get(item_id)
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
