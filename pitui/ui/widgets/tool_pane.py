"""The Tools pane: one card per tool call, newest at the bottom (an :class:`ItemPane`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from pitui.ui.widgets.conversation import ItemPane
from pitui.ui.widgets.conversation_factories import WidgetFactory

if TYPE_CHECKING:
    from pitui.ui.view.state import ToolCardItem
    from pitui.ui.widgets.tool_card import ToolCard


class ToolPane(ItemPane):
    """One card per tool call, newest at the bottom."""

    MAX_MOUNTED: ClassVar[int] = 20
    """Cards are several lines tall: 20 fill more than any viewport."""
    TAIL_WINDOW: ClassVar[int] = 8

    def new_items(self, item_ids: list[str]) -> None:
        """A new call's card is brought into view even when the pane does not follow
        (the user picked an older card, or the pane was hidden)."""
        if not self.following and item_ids:
            self.call_after_refresh(self._show_card, item_ids[-1])

    def _show_card(self, item_id: str) -> None:
        widget = self._widgets.get(item_id)
        if widget is not None:
            self.scroll_to_widget(widget, animate=False)

    def factories(self) -> Mapping[type, WidgetFactory]:
        from pitui.ui.view.state import ToolCardItem

        return {ToolCardItem: _tool_card}

    async def show_card(self, item_id: str) -> ToolCard | None:
        """Mount the card of ``item_id`` if needed, pick it and scroll it into view."""
        await self.reveal(item_id)
        return self.select(item_id)

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


def _tool_card(item: ToolCardItem) -> ToolCard:
    # Imported with the first card: the first frame may show a notice, never a card.
    from pitui.ui.widgets.tool_card import ToolCard

    return ToolCard(item)
