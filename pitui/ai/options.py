"""Options for one model call, shared by every provider adapter."""

from __future__ import annotations

import os
from typing import Literal

import msgspec

from pitui.ai.abort import AbortSignal
from pitui.ai.types import ThinkingLevel

CacheRetention = Literal["none", "short", "long"]


def default_cache_retention() -> CacheRetention:
    """pi's default: ``long`` when ``PI_CACHE_RETENTION=long``, else ``short``."""
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


class RetryPolicy(msgspec.Struct):
    """Retries before the first content event (PROVIDERS.md: 429 / 5xx / overloaded)."""

    max_attempts: int = 3
    base_delay_ms: int = 1000
    max_delay_ms: int = 60_000


class StreamOptions(msgspec.Struct):
    """Per-call options. Unset fields fall back to the model's defaults."""

    api_key: str | None = None
    """Never in the repr: keys must not reach logs or error messages."""
    signal: AbortSignal | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning: ThinkingLevel = "off"
    thinking_budgets: dict[str, int] | None = None
    cache_retention: CacheRetention = msgspec.field(default_factory=default_cache_retention)
    """``short`` unless the environment says ``PI_CACHE_RETENTION=long`` (as pi)."""
    session_id: str | None = None
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    retry: RetryPolicy = msgspec.field(default_factory=RetryPolicy)
    timeout_s: float = 600.0
    idle_timeout_s: float | None = 120.0
    """End the stream (a retryable "timed out" error) when no content event came for
    this long; keep-alives (SSE comments, ``ping`` events) do not count. None: wait."""

    def __repr__(self) -> str:  # every field but the key
        names = (name for name in self.__struct_fields__ if name != "api_key")
        return f"StreamOptions({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
