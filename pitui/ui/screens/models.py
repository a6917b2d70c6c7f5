"""The model picker (Ctrl+L, ``/model [search]``): pi's model selector over the catalogue.

Every model of the registry is listed (pi lists only usable ones); a mark says what can be
used now: ``key`` (a key is configured), ``demo`` (offline), ``ollama`` (a local server).
The search is pi's fuzzy match over provider and id; the current model comes first.
Enter picks the highlighted row, Esc cancels. The screen only chooses: switching the
session is the caller's job.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model
from pitui.core.fuzzy import fuzzy_filter
from pitui.ui.view.format import format_tokens
from pitui.ui.widgets.key_gate import EnterHoldsKeys

KEY_WIDTH = 44
"""Rows pad ``provider/id`` to the longest shown, up to this many columns."""


def model_key(model: Model) -> str:
    """``provider/id`` (the option id and what the row shows first)."""
    return f"{model.provider}/{model.id}"


def search_text(model: Model) -> str:
    """What the fuzzy search matches against (pi's model selector text)."""
    provider, mid = model.provider, model.id
    return f"{mid} {provider} {provider}/{mid} {provider} {mid}"


def order_models(registry: ModelRegistry, current: Model | None) -> list[Model]:
    """Current model first, then usable ones, then by provider and id."""

    def rank(model: Model) -> tuple[bool, bool, str, str]:
        is_current = current is not None and model_key(model) == model_key(current)
        usable = registry.usable_reason(model) is not None
        return (not is_current, not usable, model.provider, model.id)

    return sorted(registry.all(), key=rank)


def filter_models(models: list[Model], query: str) -> list[Model]:
    """pi's fuzzy filter (every token must match; best first, stable)."""
    return fuzzy_filter(models, query, search_text)


class ModelPicker(EnterHoldsKeys, ModalScreen[Model | None]):
    """Search, pick with Enter, cancel with Esc; dismisses with the model or None."""

    CSS_PATH = "models.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False, id="picker.cancel"),
        Binding("up", "move(-1)", "up", show=False, priority=True, id="picker.up"),
        Binding("down", "move(1)", "down", show=False, priority=True, id="picker.down"),
    ]

    def __init__(self, registry: ModelRegistry, current: Model | None, search: str = "") -> None:
        super().__init__()
        self.registry = registry
        self.current = current
        self.initial_search = search
        self.ordered = order_models(registry, current)
        self.shown: list[Model] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="model-picker"):
            yield Static("Select model", id="model-picker-title")
            yield Input(self.initial_search, placeholder="Search models", id="model-search")
            yield OptionList(id="model-list")
            yield Static(id="model-detail")
            yield Static("↑↓ move · Enter select · Esc cancel", id="model-picker-hint")

    def on_mount(self) -> None:
        self.refilter(self.initial_search)
        self.query_one("#model-search", Input).focus()

    def reload(self) -> None:
        """Re-read the registry (e.g. after Ollama was detected), keeping search and cursor."""
        keep = self.highlighted_model
        self.ordered = order_models(self.registry, self.current)
        self.refilter(self.query_one("#model-search", Input).value)
        if keep is not None and keep in self.shown:
            self.option_list.highlighted = self.shown.index(keep)

    @property
    def option_list(self) -> OptionList:
        """The list of models."""
        return self.query_one("#model-list", OptionList)

    def refilter(self, query: str) -> None:
        """Show the models matching ``query`` and highlight the first."""
        self.shown = filter_models(self.ordered, query)
        options = self.option_list
        options.clear_options()
        width = min(max((len(model_key(m)) for m in self.shown), default=0), KEY_WIDTH)
        options.add_options([self._option(m, width) for m in self.shown])
        if self.shown:
            options.highlighted = 0
        else:
            options.add_option(Option("  No matching models", disabled=True))
        self._show_detail()

    def _option(self, model: Model, width: int) -> Option:
        current = self.current is not None and model_key(model) == model_key(self.current)
        usable = self.registry.usable_reason(model)
        row = Text()
        row.append(model_key(model).ljust(width), style="bold" if current else "")
        row.append(" ✓" if current else "  ", style="green")
        row.append(f" {format_tokens(model.context_window):>5}", style="dim")
        row.append("  thinking" if model.reasoning else " " * 10, style="dim")
        row.append(f"  [{usable}]" if usable else "  no key", style="" if usable else "dim")
        return Option(row, id=model_key(model))

    def _show_detail(self) -> None:
        model = self.highlighted_model
        text = f"Model Name: {model.name}" if model is not None else ""
        self.query_one("#model-detail", Static).update(Text(text))

    @property
    def highlighted_model(self) -> Model | None:
        """The model under the cursor."""
        index = self.option_list.highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    @on(Input.Changed, "#model-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.refilter(event.value)

    @on(Input.Submitted, "#model-search")
    def _search_submitted(self) -> None:
        self.action_pick()

    @on(OptionList.OptionSelected, "#model-list")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        self.option_list.highlighted = event.option_index
        self.action_pick()

    @on(OptionList.OptionHighlighted, "#model-list")
    def _option_highlighted(self) -> None:
        self._show_detail()

    def action_move(self, step: int) -> None:
        """Move the highlight (wrapping, as pi)."""
        if not self.shown:
            return
        index = self.option_list.highlighted or 0
        self.option_list.highlighted = (index + step) % len(self.shown)

    def action_pick(self) -> None:
        """Dismiss with the highlighted model (no match: the held keys go on here)."""
        model = self.highlighted_model
        if model is not None:
            self.dismiss(model)
        else:
            self.let_keys_go()

    def action_cancel(self) -> None:
        """Dismiss without a choice."""
        self.dismiss(None)
