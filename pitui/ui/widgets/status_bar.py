"""The status bar: where we are, which model, what it cost, how full the context is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from pitui.core.usage import UsageTotals
from pitui.ui.view.format import context_percent, format_tokens, shorten_path
from pitui.ui.view.session_info import SessionInfo

CONTEXT_WARNING = 70.0
CONTEXT_ERROR = 90.0


def location_text(info: SessionInfo) -> str:
    """``~/proj (main) • name`` (``• read-only`` when nothing can be added)."""
    text = shorten_path(info.cwd)
    if info.git_branch:
        text += f" ({info.git_branch})"
    if info.session_name:
        text += f" • {info.session_name}"
    if info.read_only:  # lasting: every prompt would be refused
        text += " • read-only"
    return text


def model_text(info: SessionInfo) -> str:
    """``model • level`` (``thinking off`` when off), plus ``demo (offline)``."""
    if not info.model_id:
        return "no model"
    text = info.model_id
    if info.thinking_level is not None:
        level = "thinking off" if info.thinking_level == "off" else info.thinking_level
        text += f" • {level}"
    if info.demo:
        text += " • demo (offline)"
    return text


def usage_text(usage: UsageTotals) -> str:
    """``↑in ↓out Rcache Wcache $cost``, each part only when non-zero."""
    parts = [
        f"{arrow}{format_tokens(n)}"
        for arrow, n in (
            ("↑", usage.input),
            ("↓", usage.output),
            ("R", usage.cache_read),
            ("W", usage.cache_write),
        )
        if n
    ]
    if usage.cost > 0:
        parts.append(f"${usage.cost:.3f}")
    return " ".join(parts)


def context_text(usage: UsageTotals, info: SessionInfo) -> tuple[str, str]:
    """The context figure and its level class (``""``, ``-warning`` or ``-error``)."""
    if info.context_window <= 0:
        return "", ""
    window = format_tokens(info.context_window)
    auto = " (auto)" if info.auto_compaction else ""
    pct = context_percent(usage.context_tokens, info.context_window)
    if pct is None:
        return f"?/{window}{auto}", ""
    level = "-error" if pct > CONTEXT_ERROR else "-warning" if pct > CONTEXT_WARNING else ""
    return f"{pct:.1f}%/{window}{auto}", level


class StatusBar(Vertical):
    """Two lines: location + model; usage + context + key hints."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(classes="status-row"):
            yield Static(id="status-location")
            yield Static(id="status-model")
        with Horizontal(classes="status-row"):
            yield Static(id="status-usage")
            yield Static(id="status-context")
            yield Static(id="status-hints")

    def show(self, info: SessionInfo, usage: UsageTotals, hints: str = "") -> None:
        """Redraw from the session info and the usage totals."""
        text, level = context_text(usage, info)
        self._put("#status-location", location_text(info))
        self._put("#status-model", model_text(info))
        self._put("#status-usage", usage_text(usage))
        self._put("#status-context", text)
        self._put("#status-hints", hints)
        context = self.query_one("#status-context", Static)
        context.set_class(level == "-warning", "-warning")
        context.set_class(level == "-error", "-error")

    def _put(self, selector: str, text: str) -> None:
        """Update one part if its text changed: an update asks for a layout pass (the
        parts are sized to their text), and the bar is redrawn on every focus change."""
        if self._shown.get(selector) != text:
            self._shown[selector] = text
            self.query_one(selector, Static).update(text)
