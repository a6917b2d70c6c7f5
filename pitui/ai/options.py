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


DEFAULT_BASE_DELAY_MS = 2000
"""pi's ``retry.baseDelayMs``: the first retry waits this long, each next one twice as long."""
DEFAULT_MAX_DELAY_MS = 60_000
"""pi's ``retry.maxDelayMs`` (1.6: ``retry.provider.maxRetryDelayMs``): the longest wait."""
DEFAULT_PROVIDER_RETRIES = 2
"""Retries of one request before any content (the anthropic and openai SDKs' default)."""


def retry_delay_ms(base_delay_ms: int, attempt: int) -> int:
    """Retry ``attempt`` (1: the first) waits ``base × 2^(attempt−1)``: 2 s, 4 s, 8 s with
    pi's default base. The one back-off formula: a request's own retries and the
    session's retries of a failed reply both use it."""
    return base_delay_ms * (1 << max(0, attempt - 1))


class RetryPolicy(msgspec.Struct):
    """Retries before the first content event (PROVIDERS.md §5: 408, 409, 429, 5xx,
    connection errors, ``x-should-retry``). The session builds it from the ``retry``
    settings (:func:`pitui.core.retry.provider_retry_policy`); these defaults are theirs."""

    max_attempts: int = 1 + DEFAULT_PROVIDER_RETRIES
    base_delay_ms: int = DEFAULT_BASE_DELAY_MS
    max_delay_ms: int = DEFAULT_MAX_DELAY_MS
    """The longest wait: a server asking for more is not retried here; 0: no limit."""


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
