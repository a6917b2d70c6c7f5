"""What the TUI needs from an agent session (the AgentSession façade will satisfy this)."""

from __future__ import annotations

from typing import Protocol

from pitui.ui.bridge import Listener, Unsubscribe


class SessionPort(Protocol):
    """The slice of ``core.AgentSession`` the app drives: events in, intents out."""

    def subscribe(self, listener: Listener) -> Unsubscribe:
        """Deliver every AgentEvent to ``listener`` until unsubscribed."""

    async def prompt(self, text: str) -> None:
        """Start a run with a user message."""

    async def steer(self, text: str) -> None:
        """Queue a steering message while the agent works."""

    async def follow_up(self, text: str) -> None:
        """Queue a follow-up message for when the agent would stop."""

    async def abort(self) -> None:
        """Abort the current run."""
