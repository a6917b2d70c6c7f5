"""API keys never leave through tool output: they become ``***`` before anyone sees them.

A model that runs ``env`` or reads ``~/.pitui/auth.json`` would otherwise put the
provider key in the session file, on screen and into its next request. The agent applies
:meth:`SecretRedactor.tool_result` to every tool result, streamed or final (its
``filter_tool_result`` hook); the user's own ``!cmd`` output goes through
:meth:`SecretRedactor.text`. The keys are the ones pitui knows
(:meth:`~pitui.ai.keys.AuthStorage.known_secrets`), read afresh each time, since a key can
be added while the session runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pitui.agent.tool import AgentToolResult
from pitui.ai.keys import redact
from pitui.ai.types import TextContent

MASK = "***"


class SecretRedactor:
    """Replaces known key values with ``***`` in tool output."""

    def __init__(self, secrets: Callable[[], Iterable[str]]) -> None:
        self._secrets = secrets

    def text(self, text: str) -> str:
        """``text`` with every known key replaced."""
        return redact(text, self._secrets(), MASK)

    def tool_result(self, result: AgentToolResult) -> AgentToolResult:
        """``result`` with every known key replaced in its text and its details."""
        secrets = [s for s in self._secrets() if s]
        if not secrets:
            return result
        content = [
            block.model_copy(update={"text": redact(block.text, secrets, MASK)})
            if isinstance(block, TextContent)
            else block
            for block in result.content
        ]
        details = _redact_json(result.details, secrets)
        return result.model_copy(update={"content": content, "details": details})


def _redact_json(value: Any, secrets: list[str]) -> Any:
    """A copy of JSON-like ``value`` with every string redacted (``details`` hold output too)."""
    if isinstance(value, str):
        return redact(value, secrets, MASK)
    if isinstance(value, dict):
        return {key: _redact_json(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_json(item, secrets) for item in value]
    return value
