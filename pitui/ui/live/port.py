"""What the TUI needs from an agent session; ``core.AgentSession`` satisfies it.

The app depends on this protocol rather than on the façade so tests can drive it with
recorded events, and so the UI names exactly the slice of the session it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pitui.agent.messages import AgentMessage
    from pitui.core.session_events import SessionEvent


class SessionPort(Protocol):
    """Events in, intents out."""

    def subscribe(self, listener: Callable[[SessionEvent], None]) -> Callable[[], None]:
        """Deliver every session event to ``listener`` until unsubscribed."""
        ...

    @property
    def messages(self) -> list[AgentMessage]:
        """The transcript of the current branch (to rebuild the view)."""
        ...

    @property
    def is_streaming(self) -> bool:
        """Whether a run is in progress."""
        ...

    async def prompt(self, text: str) -> None:
        """Run the agent on a user message until it is idle again."""
        ...

    def steer(self, text: str) -> None:
        """Queue a steering message while the agent works."""
        ...

    def follow_up(self, text: str) -> None:
        """Queue a follow-up message for when the agent would stop."""
        ...

    def dequeue_all(self) -> list[str]:
        """Take every queued message back (steering first)."""
        ...

    async def run_bash(self, command: str, *, exclude_from_context: bool = False) -> None:
        """Run the user's ``!cmd`` (``!!cmd`` keeps it out of the model's context)."""
        ...

    def abort(self) -> None:
        """Abort the run, a retry wait and a running ``!`` command."""
        ...
