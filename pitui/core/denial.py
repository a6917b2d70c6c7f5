"""How a tool result records that the permission gate refused its call.

Its own module, free of models: the conversation view reads it for every resumed tool
card (including the first ones a resumed session shows, before the models are loaded).
"""

from __future__ import annotations

DENIED_DETAIL = "denied"
"""Key in a refused call's tool-result ``details`` (UI data, never sent to a model)."""


def was_denied(details: object) -> bool:
    """Whether tool-result ``details`` say the gate refused the call."""
    return isinstance(details, dict) and details.get(DENIED_DETAIL) is True
