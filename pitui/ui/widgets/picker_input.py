"""A picker's search field, whose Enter picks the highlighted row.

Enter in a text field picks only once the field has handled it (``Input.Submitted``),
after the app has already routed the keys typed behind it to that field, which goes
away with the picker. So the field tells the app, as it routes the Enter, that a screen
is about to change (:class:`~pitui.ui.widgets.key_gate.OpensScreens`): the picker takes
a hold on the keys that follow, and the flow its pick starts lets them go to what opens
next (the Restore files question) or has the focus then.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual import events
from textual.widgets import Input


@runtime_checkable
class Picks(Protocol):
    """A screen whose Enter picks a row and starts a flow (see the module docstring)."""

    def hold_keys_for_pick(self) -> None:
        """Enter is on its way: hold the keys after it, if it will pick a row."""
        ...


class PickerInput(Input):
    """The search field of a :class:`Picks` screen."""

    def opens_screen(self, event: events.Key) -> bool:
        screen = self.screen
        if event.key == "enter" and isinstance(screen, Picks):
            screen.hold_keys_for_pick()
        return False  # the picker holds the keys itself, until its flow lets them go
