"""``/session``: the session's facts in a panel that stays until dismissed (Esc / q).

It redraws when the session changes (a reply ends, the session is switched) and ``c``
copies it as text. The facts come from :mod:`pitui.ui.view.session_panel`, where other
features register sections of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from pitui.core.sanitize import inert
from pitui.ui.view.session_panel import PanelSection, sections_text, session_sections

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.core.session_events import SessionEvent

REDRAW_EVENTS = frozenset({"message_end", "agent_end", "session_changed", "auto_compaction_end"})


def render_sections(sections: list[PanelSection]) -> Content:
    """Titles in bold, labels muted and aligned."""
    parts: list[Content] = []
    for section in sections:
        width = max((len(label) for label, _ in section.rows), default=0)
        rows = [
            Content.assemble(("  " + label.ljust(width) + "  ", "$pi-muted"), inert(value))
            for label, value in section.rows
        ]
        parts.append(Content("\n").join([Content.styled(section.title, "bold $pi-accent"), *rows]))
    return Content("\n\n").join(parts)


class SessionPanel(ModalScreen[None]):
    """The session's facts; Esc or q closes, c copies."""

    CSS_PATH = "session_panel.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", show=False, id="session.close"),
        Binding("c", "copy", "copy", show=False, id="session.copy"),
    ]

    def __init__(self, session: AgentSession, context_tokens: Callable[[], int | None]) -> None:
        super().__init__()
        self.session = session
        self.context_tokens = context_tokens
        """The status bar's context figure now (None: unknown)."""
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="session-panel"):
            yield Static("Session Info", id="session-panel-title")
            with VerticalScroll(id="session-panel-body"):
                yield Static(id="session-panel-facts")
            yield Static("Esc close · c copy", id="session-panel-hint")

    def on_mount(self) -> None:
        self._draw()
        self._unsubscribe = self.session.subscribe(self._on_event)
        self.query_one("#session-panel-body").focus()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_event(self, event: SessionEvent) -> None:
        if getattr(event, "type", None) in REDRAW_EVENTS:
            self.call_later(self._draw)

    def sections(self) -> list[PanelSection]:
        """What the panel shows now."""
        return session_sections(self.session, self.context_tokens())

    def _draw(self) -> None:
        if self.is_attached:
            self.query_one("#session-panel-facts", Static).update(render_sections(self.sections()))

    def action_copy(self) -> None:
        """Copy the facts as text."""
        self.app.copy_to_clipboard(sections_text(self.sections()))
        self.query_one("#session-panel-hint", Static).update("Copied · Esc close")

    def action_close(self) -> None:
        """Close the panel."""
        self.dismiss(None)
