"""Scrolling panes that show ChatItems: the conversation and the tool cards.

A pane keeps one widget per item id. ``sync`` is given only the ids that changed, so a
streamed token costs one widget update no matter how long the conversation is. The pane
follows the bottom only while the user is there (scroll-lock otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget

from pitui.ui.state import ChatState, ToolCardItem
from pitui.ui.widgets.messages import CONVERSATION_WIDGETS
from pitui.ui.widgets.tool_card import ToolCard

WidgetFactory = Callable[[Any], Widget]


class ItemPane(VerticalScroll):
    """A vertical list of item widgets chosen from a registry by item type."""

    class Unseen(Message):
        """Output arrived below the viewport (``unseen``) or the user caught up."""

        def __init__(self, pane: ItemPane, unseen: bool) -> None:
            super().__init__()
            self.pane = pane
            self.unseen = unseen

    FACTORIES: ClassVar[Mapping[type, WidgetFactory]] = {}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._widgets: dict[str, Widget] = {}
        self._unseen = False

    def widget_for(self, item_id: str) -> Widget | None:
        """The widget showing ``item_id``, if mounted."""
        return self._widgets.get(item_id)

    @property
    def item_count(self) -> int:
        """How many items this pane shows."""
        return len(self._widgets)

    async def clear(self) -> None:
        """Remove every item widget (the view is being rebuilt)."""
        self._widgets.clear()
        self._set_unseen(False)
        await self.remove_children()

    def _at_bottom(self) -> bool:
        return self.max_scroll_y - self.scroll_y <= 1

    async def sync(self, state: ChatState, item_ids: Iterable[str]) -> None:
        """Create or update the widgets of the given (changed) items, in order."""
        follow = self._at_bottom()
        new: list[Widget] = []
        touched = False
        for item_id in item_ids:
            item = state.get(item_id)
            factory = self.FACTORIES.get(type(item))
            if item is None or factory is None:
                continue
            touched = True
            widget = self._widgets.get(item_id)
            if widget is None:
                widget = factory(item)
                self._widgets[item_id] = widget
                new.append(widget)
            else:
                await widget.update_item(item)  # type: ignore[attr-defined]
        if new:
            await self.mount_all(new)
        if not touched:
            return
        if follow:
            self.scroll_end(animate=False)
        else:
            self._set_unseen(True)

    def _set_unseen(self, unseen: bool) -> None:
        if unseen != self._unseen:
            self._unseen = unseen
            self.post_message(self.Unseen(self, unseen))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._unseen and self._at_bottom():
            self._set_unseen(False)


class ConversationView(ItemPane):
    """Users, replies, thinking, tool references, bash, summaries, notices."""

    FACTORIES: ClassVar[Mapping[type, WidgetFactory]] = CONVERSATION_WIDGETS


class ToolPane(ItemPane):
    """One card per tool call, newest at the bottom."""

    FACTORIES: ClassVar[Mapping[type, WidgetFactory]] = {ToolCardItem: ToolCard}
