"""The status bar: where we are, which model, what it cost, how full the context is."""

from __future__ import annotations

from dataclasses import replace

from textual.content import Content
from textual.widget import Widget

from pitui.core.usage import UsageTotals
from pitui.ui.view.format import context_percent, format_tokens, shorten_path
from pitui.ui.view.session_info import SessionInfo

CONTEXT_WARNING = 70.0
CONTEXT_ERROR = 90.0


def location_text(info: SessionInfo, path: str | None = None) -> str:
    """``~/proj (main) • name`` (``• read-only`` when nothing can be added); ``path``
    (a shortened one) instead of the working directory's."""
    text = shorten_path(info.cwd) if path is None else path
    if info.git_branch:
        text += f" ({info.git_branch})"
    if info.session_name:
        text += f" • {info.session_name}"
    if info.read_only:  # lasting: every prompt would be refused
        text += " • read-only"
    if info.files_differ:  # first: a long path is cut from the right
        text = "files differ • " + text
    return text


def _shorter_paths(path: str) -> list[str]:
    """``path`` with ever more of its middle left out: ``/tmp/…/a/proj``, ``/tmp/…/proj``,
    ``…/proj`` (the project's own name stays longest)."""
    parts = path.split("/")
    head = "/" + parts[1] if parts[0] == "" and len(parts) > 1 else parts[0]
    first = 2 if parts[0] == "" else 1  # the parts after the head
    shorter = [f"{head}/…/" + "/".join(parts[keep:]) for keep in range(first + 1, len(parts))]
    return [*shorter, "…/" + parts[-1]] if len(parts) > 1 else []


def fit_location(info: SessionInfo, room: int) -> str:
    """:func:`location_text` in ``room`` columns: the path gives way in its middle, then
    the session name and the git branch go (the read-only and files marks stay), then
    the text is cut at its end (``…``), so it never runs into the model beside it."""
    text = location_text(info)
    if len(text) <= room:
        return text
    path = shorten_path(info.cwd)
    for candidate in (
        info,
        replace(info, session_name=None),
        replace(info, session_name=None, git_branch=None),
    ):
        for shorter in _shorter_paths(path):
            text = location_text(candidate, shorter)
            if len(text) <= room:
                return text
    return text[: max(room - 1, 0)].rstrip() + "…" if room > 0 else ""


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


MIN_LOCATION = 16
"""Columns the location keeps before the model part gives way."""


def fit_model(info: SessionInfo, room: int) -> str:
    """:func:`model_text` in ``room`` columns: ``demo (offline)`` goes first, then the
    thinking level; the model id stays."""
    for candidate in (
        info,
        replace(info, demo=False),
        replace(info, demo=False, thinking_level=None),
    ):
        text = model_text(candidate)
        if len(text) <= room:
            return text
    return model_text(replace(info, demo=False, thinking_level=None))


def fit_hints(hints: str, room: int) -> str:
    """Key hints (groups two spaces apart) in ``room`` columns: the groups before the last
    one (``esc back``) give way from the end; what still does not fit is left out."""
    groups = [g for g in hints.split("  ") if g]
    while len(groups) > 1 and len("  ".join(groups)) > room:
        del groups[-2]
    text = "  ".join(groups)
    return text if len(text) <= room else ""


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


class StatusBar(Widget):
    """Two lines: location + model; usage + context + key hints.

    One widget that draws both lines itself (not a row of ``Static`` parts): the bar is in
    every frame, and eight nodes cost eight styles, layouts and renders before the first
    one; the text is fitted to the width it is drawn at, so a resize needs no refit pass.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._last: tuple[SessionInfo, UsageTotals, str] | None = None
        """What :meth:`show` was given last (fitted anew at every width)."""
        self._parts: dict[str, str] = {}
        """The texts last drawn, by part (see :meth:`part`)."""

    def show(self, info: SessionInfo, usage: UsageTotals, hints: str = "") -> None:
        """Redraw from the session info and the usage totals, each line fitted to the
        bar's width (key hints and model details give way; nothing overlaps)."""
        if self._last != (info, usage, hints):
            self._last = (info, usage, hints)
            self.refresh()

    def part(self, name: str) -> str:
        """The text drawn for one part: ``location``, ``model``, ``usage``, ``context``
        (its level in ``context-level``: ``""``, ``-warning``, ``-error``) or ``hints``."""
        self._fit(self.content_size.width or self.app.size.width - 2)  # before its layout
        return self._parts.get(name, "")

    def render(self) -> Content:
        self._fit(self.content_size.width)
        parts = self._parts
        top = _spread(Content(parts["location"]), Content(parts["model"]), self.content_size.width)
        context = Content(parts["context"])
        level = parts["context-level"]
        if level:
            context = context.stylize(f"$pi-{level[1:]}")
        left = Content.assemble(parts["usage"], "  ", context)
        bottom = _spread(left, Content(parts["hints"]), self.content_size.width)
        return Content("\n").join([top, bottom])

    def _fit(self, width: int) -> None:
        """Fit every part into ``width`` columns (all of them when the width is unknown)."""
        if self._last is None:
            self._parts = dict.fromkeys(_PARTS, "")
            return
        info, usage, hints = self._last
        context, level = context_text(usage, info)
        used = usage_text(usage)
        model = model_text(info)
        location = location_text(info)
        if width > 0:
            model = fit_model(info, width - MIN_LOCATION - 1)
            location = fit_location(info, width - len(model) - 2)  # two spaces between
            hints = fit_hints(hints, width - len(used) - 2 - len(context) - 2)
        self._parts = {
            "location": location,
            "model": model,
            "usage": used,
            "context": context,
            "context-level": level,
            "hints": hints,
        }


_PARTS = ("location", "model", "usage", "context", "context-level", "hints")


def _spread(left: Content, right: Content, width: int) -> Content:
    """``left`` at the start of a ``width``-column line and ``right`` at its end (``left``
    cut where they would meet)."""
    room = max(width - right.cell_length, 0)
    if left.cell_length > room:
        left = left.truncate(room)
    return Content.assemble(left, " " * (room - left.cell_length), right)
