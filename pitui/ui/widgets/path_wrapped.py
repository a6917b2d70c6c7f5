"""Text whose long paths wrap after their separators, not mid-name, at any width.

Textual's word wrap breaks only at spaces, so a path longer than the pane (a session
file's, in "Forked to …") was cut mid-name. This visual hands Textual the text with line
breaks for the width Textual lays it out at, each time it asks: the height it measures and
the lines it draws come from the same width, so a resize re-breaks it with nothing lost
(breaking once, at the width the widget had, cut off the last line after a resize).
"""

from __future__ import annotations

from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from pitui.ui.view.path_wrap import line_starts


class PathWrapped(Visual):
    """``content`` drawn with its long words broken after path separators."""

    def __init__(self, content: Content) -> None:
        self.content = content
        self._broken: tuple[int, Content] | None = None
        """The text broken for the last width asked about (height, then render)."""

    def __str__(self) -> str:
        return self.content.plain

    def broken_for(self, width: int) -> Content:
        """The content with a line break where each wrapped line starts at ``width``."""
        if self._broken is not None and self._broken[0] == width:
            return self._broken[1]
        lines: list[Content] = []
        for line in self.content.split("\n", allow_blank=True):
            *pieces, last = line.divide(line_starts(line.plain, width))
            lines.extend(piece.rstrip() for piece in pieces)  # the space broken at
            lines.append(last)
        broken = Content("\n").join(lines)
        self._broken = (width, broken)
        return broken

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        pad = options.rules.get("line_pad", 0) * 2
        return self.broken_for(width - pad).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        pad = rules.get("line_pad", 0) * 2
        return self.broken_for(width - pad).get_height(rules, width)
