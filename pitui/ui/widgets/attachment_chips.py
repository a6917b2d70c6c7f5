"""The images waiting to go with the next prompt, as removable chips above the composer.

A click on a chip (or Backspace at the very start of the composer) removes it; the bar
hides itself when there is nothing to show.
"""

from __future__ import annotations

from textual import events
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static


class AttachmentChip(Static):
    """One attachment; clicking it asks for its removal."""

    DEFAULT_CSS = """
    AttachmentChip {
        width: auto;
        height: 1;
        margin: 0 1 0 0;
        padding: 0 1;
        background: $pi-selectedBg;
        color: $pi-text;
    }
    AttachmentChip:hover {
        background: $pi-borderAccent;
    }
    """

    class Removed(Message):
        """The user removed the chip at ``index``."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, label: str, index: int) -> None:
        super().__init__(f"{label} ×", markup=False)
        self.index = index
        self.tooltip = "Click to remove"

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Removed(self.index))


class AttachmentBar(Horizontal):
    """Chips for every pending attachment (hidden when there are none)."""

    DEFAULT_CSS = """
    AttachmentBar {
        height: 1;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: tuple[str, ...] = ()
        self.display = False

    def show(self, labels: list[str]) -> None:
        """Redraw the chips."""
        if tuple(labels) == self.labels:
            return
        self.labels = tuple(labels)
        self.remove_children()
        self.mount_all([AttachmentChip(label, i) for i, label in enumerate(labels)])
        self.display = bool(labels)
