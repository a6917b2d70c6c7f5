"""API keys never leave through tool output: they become ``***`` before anyone sees them.

A model that runs ``env`` or reads ``~/.pitui/auth.json`` would otherwise put the
provider key in the session file, on screen and into its next request. The agent applies
:meth:`SecretRedactor.tool_result` to every tool result, streamed or final (its
``filter_tool_result`` hook); the user's own ``!cmd`` output goes through
:meth:`SecretRedactor.text`. The keys are the ones pitui knows
(:meth:`~pitui.ai.keys.AuthStorage.known_secrets`: keys, tokens and models.json header
values), read afresh each time, since a key can be added while the session runs.

Output also goes to a file: past 50 KB, bash keeps the full output in
``$TMPDIR/pi-bash-*.log`` for the model to read. That file is written through a
:class:`StreamRedactor` (see :func:`spill_redactor`), so it never holds a key either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pitui.agent.tool import AgentToolResult
from pitui.ai.keys import redact
from pitui.ai.types import TextContent

MASK = "***"

_spill_secrets: Callable[[], Iterable[str]] = tuple
"""Where the spill files' redactor gets the secrets: set once a session knows its keys."""


def redact_spill_files_with(secrets: Callable[[], Iterable[str]]) -> None:
    """Make every later bash spill file redact ``secrets()`` (called when one opens)."""
    global _spill_secrets
    _spill_secrets = secrets


def spill_redactor() -> StreamRedactor:
    """A redactor for one new spill file, with the secrets known now."""
    return StreamRedactor(list(_spill_secrets()))


class StreamRedactor:
    """Redacts a byte stream written in chunks, a key split across two chunks included.

    The last ``longest key - 1`` bytes of what was fed are held back (they may be the
    start of a key whose end has not arrived); :meth:`finish` returns them at the end.
    Bytes are matched as Latin-1 text, so any bytes (invalid UTF-8 too) pass unchanged
    except the keys' UTF-8 encodings.
    """

    def __init__(self, secrets: list[str]) -> None:
        self._keys = [s.encode("utf-8").decode("latin-1") for s in secrets if s]
        self._hold = max((len(k) for k in self._keys), default=1) - 1
        self._carry = ""

    def feed(self, chunk: bytes) -> bytes:
        """The redacted bytes of ``chunk`` that are safe to write now."""
        if not self._keys:
            return chunk
        text = redact(self._carry + chunk.decode("latin-1"), self._keys, MASK)
        cut = max(len(text) - self._hold, 0)
        self._carry = text[cut:]
        return text[:cut].encode("latin-1")

    def finish(self) -> bytes:
        """What was held back, redacted (call once, at the end of the stream)."""
        rest, self._carry = self._carry, ""
        return rest.encode("latin-1")


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
