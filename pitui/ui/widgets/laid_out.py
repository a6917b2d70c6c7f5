"""A ``virtual_size`` that asks for no layout of its own, for the widgets a streamed line grows.

Textual's ``Widget.virtual_size`` asks for another layout (and a repaint) each time it
changes. The layout itself sets it, from what it has just placed; so each streamed line
that grew the reply (the live tail, its reply widget, the conversation pane) cost the
screen a second full layout a frame later that moved nothing: ~40 % of the frame that
added the line, and a key typed meanwhile waited behind it.

Nothing else hangs on that second layout: the layout that sets the size also gives the
pane's scrollbar its new size and clamps the scroll (``Widget._scroll_update``), a
scrollbar that shows or hides asks for its own layout (``show_vertical_scrollbar``), a
widget whose size changed is repainted (``Widget._size_updated``), and a widget whose
content changes asks for a layout by updating. ``tests/ui/test_stream_layouts.py`` checks
that a streamed line is one layout and draws what a layout from scratch would. Other item
widgets (tool cards) keep Textual's reactive.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def laid_out_size() -> Reactive[Size]:
    """A ``virtual_size`` reactive for a widget class whose virtual size only layout sets."""
    return Reactive(Size(0, 0), layout=False, repaint=False)
