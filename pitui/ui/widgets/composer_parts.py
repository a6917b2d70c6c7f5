"""The light parts around the composer: the queue and activity lines above it, and the
stand-in that draws the empty composer in the first frame.

The composer itself (:mod:`pitui.ui.widgets.composer`) is Textual's ``TextArea``, whose
modules (the document, its history and navigator, the text-area themes, tree-sitter's
hooks) cost about as much to import and draw as the rest of the first screen's widgets
together. The first frame shows :class:`ComposerStandIn` instead, which looks exactly like
the focused, empty composer; the main screen puts the real one in its place right after
that frame (``MainScreen.mount_composer``) while the app holds the keys typed meanwhile.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
STAND_IN_ID = "composer-stand-in"


def thinking_classes(level: str | None) -> dict[str, bool]:
    """The composer's border classes for ``level`` (pi's ``thinking<Level>``; None: the
    plain border)."""
    return {f"-thinking-{name}": name == level for name in THINKING_LEVELS}


class ComposerStandIn(Widget, can_focus=True):
    """The empty composer as the first frame shows it, until the real one is mounted.

    It draws what ``TextArea`` draws for an empty document (the cursor line, the cursor
    cell while focused) from the same component styles, which its stylesheet defines as
    ``TextArea``'s does; ``composer.tcss`` styles it as the composer (border, padding,
    the thinking-level and focus colours). tests/ui/test_composer_stand_in.py compares the
    two, line by line, in every built-in theme.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"text-area--cursor", "text-area--cursor-line"}
    # TextArea's own rules for what an empty editor draws (textual/widgets/_text_area.py).
    DEFAULT_CSS = """
    ComposerStandIn {
        width: 1fr;
        height: auto;
        color: $foreground;
        background: $surface;
        & .text-area--cursor {
            text-style: $input-cursor-text-style;
        }
        & .text-area--cursor-line {
            background: $boost;
        }
        &:ansi {
            .text-area--cursor {
                color: $input-cursor-foreground;
                background: $input-cursor-background;
                text-style: reverse;
            }
        }
        &:dark {
            .text-area--cursor {
                color: $input-cursor-foreground;
                background: $input-cursor-background;
            }
        }
        &:light {
            .text-area--cursor {
                color: $text 90%;
                background: $foreground 70%;
            }
        }
    }
    """

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 1  # one empty line, as an empty TextArea's document

    def _watch_has_focus(self, focus: bool) -> None:
        # Where TextArea puts the terminal's cursor (for an IME) when it takes the focus.
        if focus:
            self.app.cursor_position = self.content_region.offset

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        width = self.size.width
        if y > 0:
            return Strip.blank(width, base)
        line_style = self.get_component_rich_style("text-area--cursor-line")
        cell_style = line_style
        if self.has_focus:
            cell_style = line_style + self.get_component_rich_style("text-area--cursor")
        strip = Strip([Segment(" ", cell_style)], 1).extend_cell_length(width, line_style)
        return strip.apply_style(base)


class QueueView(Static):
    """Queued steering / follow-up messages above the composer (hidden when empty)."""

    def show(self, steering: tuple[str, ...], follow_up: tuple[str, ...]) -> None:
        """Redraw the queue; hides itself when both queues are empty."""
        lines: list[str] = []
        if steering or follow_up:  # the sanitizer only with something to show
            from pitui.core.sanitize import inert

            lines = [f"Steering: {inert(t)}" for t in steering]
            lines += [f"Follow-up: {inert(t)}" for t in follow_up]
            lines.append("↳ alt+up to edit all queued messages")
        self.display = bool(lines)
        self.update(Content("\n".join(lines)))


class ActivityLine(Static):
    """What the agent is busy with (``Working...``, a retry wait …); hidden when idle."""

    def show(self, activity: str | None) -> None:
        """Show ``activity`` or hide the line."""
        self.display = activity is not None
        self.update(Content(activity or ""))
