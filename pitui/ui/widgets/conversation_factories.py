"""Which widget shows each conversation item, loaded as late as it can be.

The item widgets (markdown, tool renderers: :mod:`pitui.ui.widgets.messages`) are imported
on the first item that is not a notice, after the first frame; a first frame's notices
(the demo model's "No API key found", tmux's keyboard warning) need their own widget alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from textual.widget import Widget

WidgetFactory = Callable[[Any], Widget]


class _ConversationWidgets(Mapping[type, WidgetFactory]):
    """The conversation's widget factories (``messages.CONVERSATION_WIDGETS``), imported
    on the first item that is not a notice, after the first frame: the item widgets
    (markdown, tool renderers) are not needed to draw an empty conversation, and a first
    frame's notices (the demo model's, tmux's) need their own widget alone."""

    def __getitem__(self, kind: type) -> WidgetFactory:
        from pitui.ui.view.state import NoticeItem  # a state with items: loaded

        if kind is NoticeItem:
            from pitui.ui.widgets.notice_line import NoticeLine

            return NoticeLine
        return self._all()[kind]

    def __iter__(self) -> Iterator[type]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    @staticmethod
    def _all() -> Mapping[type, WidgetFactory]:
        from pitui.ui.widgets.messages import CONVERSATION_WIDGETS

        return CONVERSATION_WIDGETS


CONVERSATION_FACTORIES = _ConversationWidgets()
