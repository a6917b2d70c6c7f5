"""The autocomplete list above the composer (slash commands and their arguments)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One completion: ``value`` replaces the composer text when chosen."""

    value: str
    label: str
    description: str = ""
    start: int | None = None
    """Set for a word completion (a path, an ``@`` file): ``value`` replaces the text from
    this offset to :attr:`end` instead of the whole text, and choosing it never sends."""
    end: int | None = None


class SuggestionList(OptionList, can_focus=False):
    """Shown while there are suggestions for the composer text; hidden otherwise."""

    DEFAULT_CSS = """
    SuggestionList {
        height: auto;
        max-height: 8;
        border: none;
        padding: 0 1;
        background: $surface;
    }
    SuggestionList > .option-list--option-highlighted {
        background: $pi-selectedBg;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[Suggestion, ...] = ()
        self.display = False

    def show(self, items: Sequence[Suggestion]) -> None:
        """Replace the suggestions (an empty list hides the widget)."""
        if tuple(items) == self.items:
            return
        self.items = tuple(items)
        self.clear_options()
        self.add_options([self._option(item) for item in self.items])
        self.display = bool(self.items)
        if self.items:
            self.highlighted = 0

    def hide(self) -> None:
        """Drop the suggestions."""
        self.show(())

    @property
    def active(self) -> bool:
        """Whether suggestions are on screen."""
        return bool(self.items)

    def move(self, step: int) -> None:
        """Move the highlight, wrapping at both ends."""
        if self.items:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.items)

    @property
    def selected(self) -> Suggestion | None:
        """The highlighted suggestion."""
        index = self.highlighted
        return self.items[index] if self.items and index is not None else None

    @staticmethod
    def _option(item: Suggestion) -> Option:
        text = Text(item.label, style="bold")
        if item.description:
            text.append(f"  {item.description}", style="dim")
        return Option(text)
