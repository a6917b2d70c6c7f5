"""A ``virtual_size`` that asks for no layout of its own, for widgets that only layout sizes.

Textual's ``Widget.virtual_size`` asks for another layout (and a repaint) each time it
changes. For an item widget, or a pane of them, it changes only when the layout that just
ran placed everything by it: the widget's first size, or a new size for new content. So
each new or re-sized item cost the screen a second layout, a frame later (a navigation or
an Alt+→ waited for it). A pane's scrollbar showing or hiding still asks for its layout
(``show_vertical_scrollbar``); a widget whose content changes asks for one by updating.
Apart from the item widgets because the conversation pane is on the first frame's path.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def laid_out_size() -> Reactive[Size]:
    """A ``virtual_size`` reactive for a widget class whose virtual size only layout sets."""
    return Reactive(Size(0, 0), layout=False, repaint=False)
