"""Nothing typed is lost: text typed on a pane that takes none goes to the composer.

With focus on the Tools or Conversation pane (after a click, or Tab), letters used to go
nowhere. A pane with this mixin hands every printable key it does not bind itself to the
composer and moves focus there, so the rest of the sentence follows.

The hand-over happens where the app forwards the key to the focused widget, in the
app's own order: a burst of keys reaches the composer exactly as typed, even the keys
the app forwarded to the pane before focus had moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

COMPOSER_ID = "composer"

# A plain mixin at run time: a Widget base would add a CSS type name and a DEFAULT_CSS
# layer to every pane.
if TYPE_CHECKING:
    _Base = Widget
else:
    _Base = object


class TypesIntoComposer(_Base):
    """Mixin for focusable panes without text input (put it before the widget class)."""

    def _forward_event(self, event: events.Event) -> None:
        # Textual's hook for "the app sends this event to the focused widget".
        composer = self._composer_for(event)
        if composer is None:
            super()._forward_event(event)
            return
        # Now, not later (Widget.focus defers): the keys after this one go straight there.
        self.screen.set_focus(composer)
        composer._forward_event(event)

    def _composer_for(self, event: events.Event) -> Widget | None:
        """The composer a key should go to instead, or None to keep it here."""
        if not isinstance(event, events.Key) or not event.is_printable or not event.character:
            return None
        if event.key in self._bindings.key_to_bindings:
            return None  # the pane's own key (a future j/k, say)
        found = self.screen.query(f"#{COMPOSER_ID}")
        composer = found.first() if found else None
        return composer if composer is not None and composer.focusable else None
