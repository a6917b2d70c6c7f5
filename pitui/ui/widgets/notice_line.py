"""The notice line: a status line, warning or error in the conversation.

Apart from the other item widgets (:mod:`pitui.ui.widgets.messages`) because a first frame
may show notices (the demo model's "No API key found", tmux's keyboard warning) and
nothing else: the conversation imports this widget alone for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.visual import VisualType

from pitui.core.sanitize import inert
from pitui.ui.view.state import NoticeItem
from pitui.ui.widgets.base import ItemStatic
from pitui.ui.widgets.path_wrapped import PathWrapped

if TYPE_CHECKING:
    from pitui.ui.view.state import ChatItem


class NoticeLine(ItemStatic):
    """A status line, warning or error. A long path in it wraps after its separators
    (``PathWrapped`` breaks it for each width it is laid out at, a resize too)."""

    def classes_for(self, item: ChatItem) -> str:
        assert isinstance(item, NoticeItem)
        return f"-{item.level}"

    def render_item(self, item: NoticeItem) -> Content:
        return Content(inert(item.text))

    def visual_of(self, content: Content) -> VisualType:
        return PathWrapped(content)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        shown = self.visual_of(content) if isinstance(content, Content) else content
        super().update(shown, layout=layout)
