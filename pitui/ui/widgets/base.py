"""What every item widget shares: the item it shows, in-place updates, fold requests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from textual.content import Content
from textual.message import Message
from textual.visual import VisualType
from textual.widgets import Static

from pitui.ui.widgets.search_marks import SearchMarks, highlight

if TYPE_CHECKING:
    from pitui.ui.view.state import ChatItem

PANE_MARKS = ("-selected", "-highlight", "-search-current")
"""Classes the pane sets on an item widget (selection, links, search): kept when the
item's own classes are recomputed."""


class ToggleRequested(Message):
    """The user clicked a foldable item; the app turns this into a ToggleItem event."""

    def __init__(self, item_id: str) -> None:
        super().__init__()
        self.item_id = item_id


@runtime_checkable
class ItemWidget(Protocol):
    """A widget bound to one ChatItem id that can be updated in place."""

    item_id: str

    async def update_item(self, item: Any) -> None:
        """Show the new version of the item."""

    async def rebind(self, item: Any) -> None:
        """Show another item of the same kind, as a widget made for it would (a resync
        reuses the widgets of a tail it replaces: :mod:`~pitui.ui.widgets.item_resync`)."""

    def set_search(self, marks: SearchMarks | None) -> None:
        """Highlight the search's matches (None: none)."""


def pane_marks(widget: Static | Any) -> str:
    """The pane's marks currently on ``widget``, as a class string."""
    return " ".join(c for c in PANE_MARKS if widget.has_class(c))


class ItemStatic(Static):
    """An item drawn as one block of styled text (re-rendered only when its item changes)."""

    DEFAULT_CSS = "ItemStatic { height: auto; }"
    FOLDABLE: ClassVar[bool] = False

    def __init__(self, item: ChatItem) -> None:
        self.item_id = item.id
        self.item: ChatItem = item
        self._marks: SearchMarks | None = None
        self._content = self.render_item(item)
        self._highlighted = 0  # matches highlighted in what is shown
        # Given to Static, not update()d: an update before the widget is mounted asks for
        # a layout of its own, a frame after the one that lays the new widget out.
        super().__init__(self.visual_of(self._content), classes=self.classes_for(item))

    def visual_of(self, content: Content) -> VisualType:
        """What is drawn for ``content`` (the notice line wraps long paths)."""
        return content

    def classes_for(self, item: ChatItem) -> str:
        """CSS classes that depend on the item's state."""
        expanded = getattr(item, "expanded", False)
        return "-expanded" if expanded else ""

    def render_item(self, item: Any) -> Content:
        """The item as styled text."""
        raise NotImplementedError

    async def update_item(self, item: Any) -> None:
        """Re-render for a new version of the item."""
        self.item = item
        self.set_classes(f"{self.classes_for(item)} {pane_marks(self)}")
        self._content = self.render_item(item)
        shown, self._highlighted = highlight(self._content, self._marks)
        self.update(shown)

    async def rebind(self, item: Any) -> None:
        """Show another item of the same kind, as ``type(self)(item)`` would: its id, its
        classes (the pane's marks dropped: the pane decorates it again), no search marks."""
        self.item_id = item.id
        self.item = item
        self._marks = None
        self._highlighted = 0
        self.set_classes(self.classes_for(item))
        self._content = self.render_item(item)
        self.update(self._content)

    def set_search(self, marks: SearchMarks | None) -> None:
        """Highlight the search's matches (None: none). Only the styles change, so the
        pane is not laid out again; an item without matches before or after is left as is
        (a keystroke re-marks every mounted item)."""
        if marks == self._marks:
            return
        self._marks = marks
        shown, count = highlight(self._content, marks)
        if count or self._highlighted:
            self.update(shown, layout=False)
        self._highlighted = count

    def on_click(self) -> None:
        if self.FOLDABLE:
            self.post_message(ToggleRequested(self.item_id))
