"""What to tell the user when a session's model is not one pitui can use.

A session imported from pi (or written on another machine) names its model; when this
registry does not have it, or has it without a key, the session goes on with another
model. Start-up, ``/resume`` and ``pitui session import`` say so with this one sentence.
"""

from __future__ import annotations

from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model
from pitui.core.session.context import ModelRef


def unconfigured_model_notice(
    registry: ModelRegistry, used: ModelRef | None, instead: Model | None
) -> str | None:
    """The notice for a session that used ``used`` and goes on with ``instead`` (None when
    the session's model is the one in use, or usable here)."""
    if used is None:
        return None
    label = f"{used.provider}/{used.model_id}"
    if instead is not None and (instead.provider, instead.id) == (used.provider, used.model_id):
        return None
    found = registry.find(used.provider, used.model_id)
    if found is not None and registry.usable_reason(found) is not None:
        return None
    why = (
        "is not configured here (pitui's catalogue and models.json do not have it)"
        if found is None
        else f"has no API key here (set the key for {used.provider})"
    )
    then = f"; using {instead.provider}/{instead.id}" if instead is not None else ""
    return f"This session used the model {label}, which {why}{then}."
