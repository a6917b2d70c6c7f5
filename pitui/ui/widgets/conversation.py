"""Scrolling panes that show ChatItems: the conversation and the tool cards.

A pane keeps one widget per item id. ``sync`` is given only the ids that changed, so a
streamed token costs one widget update no matter how long the conversation is.

Two things keep long sessions cheap and pleasant:

- scroll-lock: the pane follows the bottom only while the user is there; otherwise it
  posts :class:`ItemPane.Unseen` so the screen can show "new output ↓";
- a bounded DOM: while following, widgets far above the viewport are unmounted (their
  items stay in the state); scrolling to the top mounts them again, a batch at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from pitui.ui.view.chat_state import ChatState

if TYPE_CHECKING:
    from pitui.ui.view.state import ChatItem
    from pitui.ui.widgets.tool_card import ToolCard

WidgetFactory = Callable[[Any], Widget]
ITEM_STYLESHEETS = ("conversation.tcss", "tool_card.tcss")
"""App-level stylesheets of the item widgets, beside this module."""


def load_item_styles(app: App[Any]) -> None:
    """Add the item widgets' stylesheets to the app's, once, before the first item mounts.

    They are not in ``PituiApp.CSS_PATH``: parsing them is a cost of the first frame,
    which shows no items. Their rules style only item widgets (and the earlier-items
    marker), so no widget already on screen changes when they arrive.
    """
    for name in ITEM_STYLESHEETS:
        path = Path(__file__).with_name(name)
        if not app.stylesheet.has_source(str(path)):
            # As Stylesheet.read stores a CSS_PATH file (user rules, no scope), but through
            # add_source, which also drops the cached selector map so the rules apply.
            css = path.read_text(encoding="utf-8")
            app.stylesheet.add_source(css, read_from=(str(path), ""))
            app.css_path.append(path)  # so that ``textual --dev`` reloads it too


class ItemPane(VerticalScroll):
    """A vertical list of item widgets chosen from a registry by item type."""

    class Unseen(Message):
        """Output arrived below the viewport (``unseen``) or the user caught up."""

        def __init__(self, pane: ItemPane, unseen: bool) -> None:
            super().__init__()
            self.pane = pane
            self.unseen = unseen

    FACTORIES: ClassVar[Mapping[type, WidgetFactory]] = {}
    MAX_MOUNTED: ClassVar[int] = 40
    """Item widgets kept mounted while following the bottom."""
    PRUNE_SLACK: ClassVar[int] = 20
    """Prune only once this many extra widgets piled up (pruning in batches)."""
    RESTORE_BATCH: ClassVar[int] = 30
    """Widgets mounted again per scroll to the top."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._widgets: dict[str, Widget] = {}
        self._order: list[str] = []  # every item id this pane shows, in order
        self._known: set[str] = set()
        self._first = 0  # position in _order of the first mounted widget
        self._state: ChatState | None = None
        self._unseen = False
        # Mounted (as the first child) only once items are unmounted above the window:
        # an empty pane at start-up need not create, style and lay out a hidden widget.
        self._earlier = Static(classes="earlier-marker")

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
        self._set_unseen(False)
        self._earlier.display = False
        await self.remove_children(widgets)

    def _at_bottom(self) -> bool:
        return self.max_scroll_y - self.scroll_y <= 1

    async def sync(self, state: ChatState, changed: Iterable[ChatItem]) -> None:
        """Create or update the widgets of the given (changed) items of ``state``, in order."""
        self._state = state
        follow = self._at_bottom()
        fresh: list[tuple[str, Any]] = []
        touched = False
        factories = self.factories()
        for item in changed:
            if type(item) not in factories:
                continue
            touched = True
            item_id = item.id
            widget = self._widgets.get(item_id)
            if widget is not None:
                await widget.update_item(item)  # type: ignore[attr-defined]
            elif item_id not in self._known:
                self._known.add(item_id)
                self._order.append(item_id)
                fresh.append((item_id, item))
            # else: unmounted above the window; rebuilt from the state when scrolled to.
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
        else:
            self._set_unseen(True)

    def factories(self) -> Mapping[type, WidgetFactory]:
        """The widget factory of each item type this pane shows."""
        return self.FACTORIES

    def _create(self, item_id: str, item: Any) -> Widget:
        widget = self._widgets[item_id] = self.factories()[type(item)](item)
        return widget

    async def _skip_to_tail(self, fresh: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """A flood of new items (a resumed session): mount only the last window of them."""
        old = list(self._widgets.values())
        self._widgets.clear()
        await self.remove_children(old)
        kept = fresh[-self.MAX_MOUNTED :]
        self._first = len(self._order) - len(kept)
        await self._show_earlier_marker()
        return kept

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
        self.call_after_refresh(self._keep_position, height_before)

    def _keep_position(self, height_before: int) -> None:
        self.scroll_to(y=self.virtual_size.height - height_before, animate=False)

    def _set_unseen(self, unseen: bool) -> None:
        if unseen != self._unseen:
            self._unseen = unseen
            self.post_message(self.Unseen(self, unseen))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._unseen and self._at_bottom():
            self._set_unseen(False)
        if new_value <= 0 < old_value and self._first > 0:
            self.call_later(self.restore_earlier)


class ConversationView(ItemPane):
    """Users, replies, thinking, tool references, bash, summaries, notices."""

    def factories(self) -> Mapping[type, WidgetFactory]:
        # Imported on the first item, after the first frame: the item widgets (markdown,
        # tool renderers) are not needed to draw an empty conversation.
        from pitui.ui.widgets.messages import CONVERSATION_WIDGETS

        return CONVERSATION_WIDGETS

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


class ToolPane(ItemPane):
    """One card per tool call, newest at the bottom."""

    MAX_MOUNTED: ClassVar[int] = 20
    """Cards are several lines tall: 20 fill more than any viewport."""

    def factories(self) -> Mapping[type, WidgetFactory]:
        from pitui.ui.view.state import ToolCardItem
        from pitui.ui.widgets.tool_card import ToolCard  # lazy: see ConversationView

        return {ToolCardItem: ToolCard}

    def select(self, item_id: str | None) -> ToolCard | None:
        """Mark the card of ``item_id`` as selected (and no other); scroll it into view."""
        from pitui.ui.widgets.tool_card import ToolCard

        chosen: ToolCard | None = None
        for key, widget in self._widgets.items():
            widget.set_class(key == item_id, "-selected")
            if key == item_id and isinstance(widget, ToolCard):
                chosen = widget
        if chosen is not None:
            self.scroll_to_widget(chosen, animate=False)
        return chosen
