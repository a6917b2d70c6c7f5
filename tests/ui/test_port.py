"""The app's SessionPort is satisfied by the real AgentSession (checked by mypy)."""

from __future__ import annotations

from pitui.core.agent_session import AgentSession
from pitui.ui.live.port import SessionPort


def as_port(session: AgentSession) -> SessionPort:
    """mypy --strict fails here if AgentSession stops matching the port."""
    return session


def test_port_is_structural() -> None:
    assert callable(as_port)
