"""Scrolling panes that show ChatItems: the item pane and the conversation (the Tools pane is
``tool_pane.py``).

A pane keeps one widget per item id. ``sync`` is given only the ids that changed, so a
streamed token costs one widget update no matter how long the conversation is.

Two things keep long sessions cheap and pleasant:

- scroll-lock: the pane follows the bottom until the user scrolls away from it (a resize,
  or markdown that grows as it renders, never stops it following); while the user reads
  above, output arriving below the viewport posts :class:`ItemPane.Unseen` so the screen
  can show "new output ↓";
- a bounded DOM: while following, widgets far above the viewport are unmounted (their
  items stay in the state); scrolling to the top mounts them again, a batch at a time.
  :meth:`ItemPane.reveal` brings any item into view (keyboard selection, search): one
  far from the mounted window gets a window of its own, detached from the bottom until
  the user scrolls back down (or sends a message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from pitui.ui.view.chat_state import ChatState
from pitui.ui.widgets.after_layout import AfterLayout, placed
from pitui.ui.widgets.conversation_factories import CONVERSATION_FACTORIES, WidgetFactory
from pitui.ui.widgets.item_styles import load_item_styles
from pitui.ui.widgets.laid_out import laid_out_size
from pitui.ui.widgets.search_marks import SearchMarks
from pitui.ui.widgets.type_through import TypesIntoComposer

if TYPE_CHECKING:
    from pitui.ui.view.search import Match
    from pitui.ui.view.selection import Copied
    from pitui.ui.view.state import ChatItem


class ItemPane(TypesIntoComposer, VerticalScroll):
    """A vertical list of item widgets chosen from a registry by item type.

    Printable keys typed while it has focus go on to the composer (:mod:`type_through`).
    """

    class Unseen(Message):
        """Output arrived below the viewport (``unseen``) or the user caught up."""

        def __init__(self, pane: ItemPane, unseen: bool) -> None:
            super().__init__()
            self.pane = pane
            self.unseen = unseen

    FACTORIES: ClassVar[Mapping[type, WidgetFactory]] = {}
    MAX_MOUNTED: ClassVar[int] = 40
    """Item widgets kept mounted while following the bottom."""
    TAIL_WINDOW: ClassVar[int] = 16
    """Item widgets mounted when more than MAX_MOUNTED arrive at once (a rebuild, a
    resumed session, a navigation): enough to fill a tall terminal; more are mounted if
    they do not, and when the user scrolls up. Each one mounted costs its layout (an item's height
    is its rendered content) at every re-layout of the screen."""
    PRUNE_SLACK: ClassVar[int] = 20
    """Prune only once this many extra widgets piled up (pruning in batches)."""
    RESTORE_BATCH: ClassVar[int] = 30
    """Widgets mounted again per scroll to the top (or, detached, to the bottom)."""
    REVEAL_AROUND: ClassVar[int] = 15
    """Widgets mounted on each side of an item revealed far from the mounted window."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._widgets: dict[str, Widget] = {}
        self._order: list[str] = []  # every item id this pane shows, in order
        self._known: dict[str, None] = {}  # _order as keys (a dict: 2/3 of a set's size)
        self._first = 0  # position in _order of the first mounted widget
        self._last: int | None = None  # end of the mounted window; None: the bottom
        self._state: ChatState | None = None
        self._unseen = False
        self._following = True
        """The pane sticks to the bottom (the user has not scrolled away from it)."""
        # Mounted (as the first child) only once items are unmounted above the window:
        # an empty pane at start-up need not create, style and lay out a hidden widget.
        self._earlier = Static(classes="earlier-marker")
        self._later = Static(classes="earlier-marker later-marker")
        # Measuring the mounted window waits for the layout that placed its first widget.
        self.after_layout = AfterLayout(self, self._window_placed)

    def _window_placed(self) -> bool:
        order = self._order
        first = self._widgets.get(order[self._first]) if self._first < len(order) else None
        return first is None or placed(self.screen, first)

    def widget_for(self, item_id: str) -> Widget | None:
        """The widget showing ``item_id``, if mounted."""
        return self._widgets.get(item_id)

    @property
    def item_count(self) -> int:
        """How many items this pane shows (mounted or not)."""
        return len(self._order)

    @property
    def mounted_count(self) -> int:
        """How many item widgets are mounted."""
        return len(self._widgets)

    async def clear(self) -> None:
        """Remove every item widget (the view is being rebuilt)."""
        widgets = list(self._widgets.values())
        self._widgets.clear()
        self._order.clear()
        self._known.clear()
        self._first = 0
        self._last = None
        self._set_unseen(False)
        self._following = True  # a rebuilt view opens at its end
        self.anchor(False)
        self._earlier.display = False
        self._later.display = False
        await self.remove_children(widgets)

    def _at_bottom(self) -> bool:
        return self.max_scroll_y - self.scroll_y <= 1

    @property
    def following(self) -> bool:
        """Whether new output scrolls into view (the user is at the bottom)."""
        return self._following

    def _below_view(self, widget: Widget) -> bool:
        """Whether part of ``widget`` is below the visible part of the pane."""
        bottom = self.scroll_offset.y + self.scrollable_content_region.height
        return widget.virtual_region.bottom > bottom

    async def sync(self, state: ChatState, changed: Iterable[ChatItem]) -> None:
        """Create or update the widgets of the given (changed) items of ``state``, in order."""
        self._state = state
        follow = self._following and self._last is None
        fresh: list[tuple[str, Any]] = []
        touched = unseen = False
        factories = self.factories()
        for item in changed:
            if type(item) not in factories:
                continue
            touched = True
            item_id = item.id
            widget = self._widgets.get(item_id)
            if widget is not None:
                unseen = unseen or (not follow and self._below_view(widget))
                await widget.update_item(item)  # type: ignore[attr-defined]
            elif item_id not in self._known:
                self._known[item_id] = None
                self._order.append(item_id)
                if self._last is None:
                    fresh.append((item_id, item))
                else:  # detached: it waits below the window
                    await self._show_later_marker()
            # else: unmounted outside the window; rebuilt from the state when scrolled to.
        if fresh:
            load_item_styles(self.app)
        if follow and len(fresh) > self.MAX_MOUNTED:
            fresh = await self._skip_to_tail(fresh)
        if fresh:
            await self.mount_all([self._create(item_id, item) for item_id, item in fresh])
        if not touched:
            return
        if follow:
            await self._prune()
            self.scroll_end(animate=False)
        elif fresh or unseen:  # something new below the viewport, not a change in view
            self._set_unseen(True)
        if fresh:
            self.new_items([item_id for item_id, _ in fresh])

    def new_items(self, item_ids: list[str]) -> None:
        """Items were added at the end (a hook: the tool pane brings new cards into view)."""

    def factories(self) -> Mapping[type, WidgetFactory]:
        """The widget factory of each item type this pane shows."""
        return self.FACTORIES

    def watch_virtual_size(self, old: object, new: object) -> None:
        # Content re-wrapped (a resize) or grew while rendering (markdown): stay at the end.
        if self._following and old != new:
            self.scroll_end(animate=False)

    def on_resize(self) -> None:
        if self._following:
            self.scroll_end(animate=False)

    def _create(self, item_id: str, item: Any) -> Widget:
        widget = self._widgets[item_id] = self.factories()[type(item)](item)
        self.decorate(item_id, widget)
        return widget

    def decorate(self, item_id: str, widget: Widget) -> None:
        """Give a newly created item widget the pane's marks (selection, search)."""

    async def _skip_to_tail(self, fresh: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """A flood of new items (a resumed session): mount only the last window of them."""
        old = list(self._widgets.values())
        self._widgets.clear()
        await self.remove_children(old)
        kept = fresh[-self.TAIL_WINDOW :]
        self.open_at_end()
        self._first = len(self._order) - len(kept)
        self._last = None
        await self._show_earlier_marker()
        await self._show_later_marker()
        self.after_layout.call(self.fill_viewport)
        return kept

    def fill_viewport(self) -> None:
        """The tail window is shorter than the pane (one-line items): mount a batch above."""
        if self._first > 0 and self.virtual_size.height <= self.scrollable_content_region.height:
            self.call_later(self.restore_earlier)

    def open_at_end(self) -> None:
        """Lay the items out at their end from the next frame on, for a view that fills
        more than the pane (a long session resumed). Plain following scrolls one frame
        later: that first frame would show the top of the window, then jump. Anchored
        (Textual's anchor, let go when the user scrolls away), shorter content would sit
        at the bottom of the pane: hence only for a view known to be long."""
        self.anchor()

    async def _prune(self) -> None:
        excess = len(self._widgets) - self.MAX_MOUNTED
        if excess < self.PRUNE_SLACK:
            return
        ids = self._order[self._first : self._first + excess]
        widgets = [self._widgets.pop(item_id) for item_id in ids]
        self._first += excess
        await self._show_earlier_marker()
        await self.remove_children(widgets)

    async def _show_earlier_marker(self) -> None:
        marker = self._earlier
        marker.display = self._first > 0
        marker.update(f"▲ {self._first} earlier items: scroll up to show them")
        if marker.display and marker.parent is None:
            await self.mount(marker, before=0 if self.children else None)

    async def restore_earlier(self) -> None:
        """Mount the batch of item widgets just above the first mounted one."""
        if self._first == 0 or self._state is None:
            return
        start = max(0, self._first - self.RESTORE_BATCH)
        anchor = self._widgets.get(self._order[self._first])
        widgets: list[Widget] = []
        for item_id in self._order[start : self._first]:
            widgets.append(self._create(item_id, self._state.get(item_id)))
        height_before = self.virtual_size.height
        self._first = start
        await self.mount_all(widgets, before=anchor)
        await self._show_earlier_marker()
        # Keep what the user was looking at in place.
        self.after_layout.call(lambda: self._keep_position(height_before))
        self.after_layout.call(self.fill_viewport)

    def _keep_position(self, height_before: int) -> None:
        self.scroll_to(y=self.virtual_size.height - height_before, animate=False)

    # ------------------------------------------------------------------ revealing

    @property
    def detached(self) -> bool:
        """Whether the mounted window ends above the last item (see :meth:`reveal`)."""
        return self._last is not None

    def _end(self) -> int:
        return len(self._order) if self._last is None else self._last

    async def _show_later_marker(self) -> None:
        marker = self._later
        later = len(self._order) - self._end()
        marker.display = later > 0
        marker.update(f"▼ {later} later items: scroll down to show them")
        if marker.display and marker.parent is None:
            await self.mount(marker)

    async def restore_later(self) -> None:
        """Detached: mount the batch of item widgets just below the window."""
        if self._last is None or self._state is None:
            return
        end = min(len(self._order), self._last + self.RESTORE_BATCH)
        ids = self._order[self._last : end]
        self._last = None if end >= len(self._order) else end
        widgets = [self._create(item_id, self._state.get(item_id)) for item_id in ids]
        await self.mount_all(widgets, before=self._later if self._later.parent else None)
        await self._show_later_marker()

    async def reveal(self, item_id: str) -> Widget | None:
        """Make the widget of ``item_id`` mounted and scroll it into view (None: unknown).

        A nearby item is reached by mounting the batches in between; a far one by
        mounting a window around it instead (the rest stays unmounted, as always).
        """
        if item_id not in self._known:
            return None
        if item_id != self._order[-1]:
            self._following = False  # the user looks up there: growth must not pull away
        widget = self._widgets.get(item_id)
        if widget is None:
            if self._state is None:
                return None
            widget = await self._mount_around(self._order.index(item_id))
        self.call_after_refresh(self._scroll_into_view, widget)
        return widget

    async def _mount_around(self, position: int) -> Widget:
        assert self._state is not None
        if self._first - self.RESTORE_BATCH <= position < self._first:
            await self.restore_earlier()
        elif self._last is not None and self._last <= position < self._last + self.RESTORE_BATCH:
            await self.restore_later()
        else:
            start = max(0, position - self.REVEAL_AROUND)
            end = min(len(self._order), position + self.REVEAL_AROUND + 1)
            with self.app.batch_update():
                old = list(self._widgets.values())
                self._widgets.clear()
                await self.remove_children(old)
                self._first, self._last = start, None if end >= len(self._order) else end
                ids = self._order[start:end]
                await self.mount_all(
                    [self._create(i, self._state.get(i)) for i in ids],
                    before=self._later if self._later.parent else None,
                )
                await self._show_earlier_marker()
                await self._show_later_marker()
        return self._widgets[self._order[position]]

    def _scroll_into_view(self, widget: Widget) -> None:
        if widget.is_attached:
            self.scroll_to_widget(widget, animate=False, top=widget.outer_size.height > 8)

    async def follow_bottom(self) -> None:
        """Back to the bottom (a message was sent): a detached window returns to the tail."""
        if self._last is not None and self._state is not None:
            await self._mount_around(len(self._order) - 1)
        self._following = True
        self.scroll_end(animate=False)

    def _set_unseen(self, unseen: bool) -> None:
        if unseen != self._unseen:
            self._unseen = unseen
            self.post_message(self.Unseen(self, unseen))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Only a scroll moves scroll_y (a resize or growing content leave it), so this is
        # where the user leaves the bottom or comes back to it.
        self._following = self._at_bottom()
        if self._unseen and self._following and self._last is None:
            self._set_unseen(False)
        if new_value <= 0 < old_value and self._first > 0:
            self.call_later(self.restore_earlier)
        if self._last is not None and new_value > old_value and self._at_bottom():
            self.call_later(self.restore_later)


class ConversationView(ItemPane):
    """Users, replies, thinking, tool references, bash, summaries, notices.

    Focused (its own key, or Tab from the composer), it selects items: ↑/↓ (PgUp/PgDn,
    Home/End) move, Enter folds, ``c`` copies the item, ``C`` its last code block, ``t``
    jumps to its tool card, Esc goes back to the composer. Other typing goes on to the
    composer (:mod:`~pitui.ui.widgets.type_through`). What the keys do is view-model logic
    (:mod:`pitui.ui.view.selection`, imported on first use: not first-frame); this
    widget keeps the selected id and shows it.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "select(-1)", "previous item", show=False, id="conversation.up"),
        Binding("down", "select(1)", "next item", show=False, id="conversation.down"),
        Binding("pageup", "select(-10)", show=False, id="conversation.pageup"),
        Binding("pagedown", "select(10)", show=False, id="conversation.pagedown"),
        Binding("home", "select_edge(-1)", show=False, id="conversation.home"),
        Binding("end", "select_edge(1)", show=False, id="conversation.end"),
        Binding("enter", "fold", "fold / unfold", show=False, id="conversation.fold"),
        Binding("escape", "leave", "back to the composer", show=False, id="conversation.leave"),
    ]

    class ToolJump(Message):
        """``t`` on an item: show its tool card (the screen owns the tool pane)."""

        def __init__(self, item_id: str) -> None:
            super().__init__()
            self.item_id = item_id

    class Leave(Message):
        """Esc: the user is done with the conversation (the screen focuses the composer)."""

    virtual_size = laid_out_size()
    """Set by the layout that placed the items: see :mod:`~pitui.ui.widgets.laid_out`."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.selected: str | None = None
        """The selected item's id (kept while the pane is not focused, shown when it is)."""
        self.marks: tuple[re.Pattern[str], str | None, int] | None = None
        """Search highlights: pattern, the current match's item and its occurrence there."""

    def factories(self) -> Mapping[type, WidgetFactory]:
        return CONVERSATION_FACTORIES

    @property
    def state(self) -> ChatState:
        """The chat state this pane last showed."""
        return self._state or ChatState()

    @property
    def _showing_selection(self) -> bool:
        # The screen's focus, not has_focus: the Focus handler runs before has_focus is set.
        return self.screen.focused is self

    def decorate(self, item_id: str, widget: Widget) -> None:
        widget.set_class(self._showing_selection and item_id == self.selected, "-selected")
        if self.marks is not None:
            self._mark(item_id, widget)

    def expand_for_match(self, item_id: str) -> None:
        """The current match is in a folded card or thinking block: unfold it."""
        from pitui.ui.view.state import BranchSummaryItem, CompactionItem, CustomItem, ThinkingItem
        from pitui.ui.widgets.base import ToggleRequested

        item = self.state.get(item_id)
        folded = (ThinkingItem, CompactionItem, BranchSummaryItem, CustomItem)
        if isinstance(item, folded) and not item.expanded:
            self.post_message(ToggleRequested(item_id))

    # ------------------------------------------------------------------ selection

    async def select_item(self, item_id: str | None) -> None:
        """Select ``item_id`` (mounting it if needed) and scroll it into view."""
        old = self.selected
        self.selected = item_id
        if old is not None and old in self._widgets:
            self._widgets[old].remove_class("-selected")
        widget = await self.reveal(item_id) if item_id is not None else None
        if widget is not None:
            widget.set_class(self._showing_selection, "-selected")

    def _first_visible(self) -> str | None:
        """The last item whose widget shows in the viewport (where the eye is)."""
        region = self.scrollable_content_region
        seen = [i for i, w in self._widgets.items() if w.region.overlaps(region)]
        return seen[-1] if seen else None

    async def on_focus(self) -> None:
        from pitui.ui.view.selection import step

        chosen = self.selected
        if chosen is None or chosen not in self.state.index:
            chosen = self._first_visible() or step(self.state, None, -1)
        await self.select_item(chosen)

    def on_blur(self) -> None:
        selected = self.selected
        if selected is not None and selected in self._widgets:
            self._widgets[selected].remove_class("-selected")

    async def action_select(self, delta: int) -> None:
        """Move the selection ``delta`` items."""
        from pitui.ui.view.selection import step

        await self.select_item(step(self.state, self.selected, delta))

    async def action_select_edge(self, direction: int) -> None:
        """The first (-1) or last (1) item."""
        items = self.state.items
        if len(items):
            await self.select_item(items[0 if direction < 0 else len(items) - 1].id)

    def action_fold(self) -> None:
        """Enter: fold or unfold the selected item (the app applies it to the state)."""
        from pitui.ui.view.selection import is_foldable
        from pitui.ui.widgets.base import ToggleRequested

        item_id = self.selected
        if item_id is not None and is_foldable(self.state.get(item_id)):
            self.post_message(ToggleRequested(item_id))

    def action_leave(self) -> None:
        """Esc: back to the composer."""
        self.post_message(self.Leave())

    _ITEM_KEYS = frozenset({"c", "C", "t"})

    def _composer_for(self, event: events.Event) -> Widget | None:
        # c / C / t stay here while an item is selected; any other typing goes on to the
        # composer (decided where the app hands the key over, so a burst keeps its order).
        if (
            isinstance(event, events.Key)
            and event.character in self._ITEM_KEYS
            and self.selected in self.state.index
        ):
            return None
        return super()._composer_for(event)

    async def on_key(self, event: events.Key) -> None:
        """``c`` copies the selected item, ``C`` its last code block, ``t`` jumps to its
        tool card."""
        action = {"c": self._copy_item, "C": self._copy_code, "t": self._jump_to_tool}.get(
            event.character or ""
        )
        item = self.state.get(self.selected or "")
        if action is None or item is None:
            return
        event.stop()
        event.prevent_default()
        action(item)

    def _copy_item(self, item: ChatItem) -> None:
        from pitui.ui.view.selection import copy_of

        self._copy(copy_of(item))

    def _copy_code(self, item: ChatItem) -> None:
        from pitui.ui.view.selection import last_code_block

        code = last_code_block(item)
        if code is None:
            self.app.notify("No code block in this item", severity="warning", timeout=3)
            return
        self._copy(code)

    def _copy(self, copied: Copied) -> None:
        self.app.copy_to_clipboard(copied.text)
        lines = copied.text.count("\n") + 1
        self.app.notify(f"Copied {copied.what}: {len(copied.text):,} characters, {lines} lines")

    def _jump_to_tool(self, item: ChatItem) -> None:
        from pitui.ui.view.selection import tool_card_of

        card = tool_card_of(self.state, item)
        if card is None:
            self.app.notify("No tool call here", severity="warning", timeout=3)
            return
        self.post_message(self.ToolJump(card))

    # ------------------------------------------------------------------ search

    def _mark(self, item_id: str, widget: Widget) -> None:
        marks = self.marks
        set_search = getattr(widget, "set_search", None)
        if marks is None:
            widget.remove_class("-search-current")
            if set_search is not None:
                set_search(None)
            return
        pattern, current_id, occurrence = marks
        widget.set_class(item_id == current_id, "-search-current")
        if set_search is not None:
            set_search(SearchMarks(pattern, occurrence if item_id == current_id else None))

    async def show_search(self, pattern: re.Pattern[str] | None, match: Match | None) -> None:
        """Highlight ``pattern`` in the mounted items and bring ``match`` into view."""
        if pattern is None:
            self.marks = None
        else:
            current = (match.item_id, match.occurrence) if match else (None, 0)
            self.marks = (pattern, *current)
        if match is not None:
            await self.reveal(match.item_id)
        for item_id, widget in self._widgets.items():
            self._mark(item_id, widget)

    def highlight_message(self, message_id: str | None) -> None:
        """Mark the mounted widgets of assistant message ``message_id`` (blocks, tool refs)."""
        from pitui.ui.view.state import ToolCardItem  # lazy: the item classes are not first-frame

        first: Widget | None = None
        for item_id, widget in self._widgets.items():
            item = self._state.get(item_id) if self._state is not None else None
            on = message_id is not None and (
                item_id.startswith(f"{message_id}.")
                or (isinstance(item, ToolCardItem) and item.message_id == message_id)
            )
            widget.set_class(on, "-highlight")
            first = first or (widget if on else None)
        if first is not None:
            self.scroll_to_widget(first, animate=False)
