"""Which failed replies are worth retrying automatically (PI_SPEC §6.10)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pitui.ai.options import RetryPolicy, retry_delay_ms
from pitui.ai.overflow import is_context_overflow
from pitui.ai.types import AssistantMessage
from pitui.lazy_pattern import lazy_pattern

if TYPE_CHECKING:
    from pitui.core.settings import RetrySettings

__all__ = ["is_retryable_error", "provider_retry_policy", "retry_delay_ms"]

_RETRYABLE = lazy_pattern(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|"
    r"server.?error|internal.?error|connection.?error|connection.?refused|other side closed|"
    r"fetch failed|upstream.?connect|reset before headers|terminated|retry delay|"
    r"timed? out|timeout",  # pi 1.6 retries timeouts too
    re.IGNORECASE,
)


def is_retryable_error(message: AssistantMessage, context_window: int | None = None) -> bool:
    """A transient provider error: not an overflow (compaction handles those)."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return _RETRYABLE.search(message.error_message) is not None


def provider_retry_policy(settings: RetrySettings) -> RetryPolicy:
    """Each request's own retries, from the same ``retry`` settings as the session's:
    ``baseDelayMs`` paces both, ``provider.maxRetries`` counts the request's retries and
    ``provider.maxRetryDelayMs`` (else ``maxDelayMs``) caps the waits.

    ``retry.enabled`` is not read here, on purpose: pi 1.6's settings.md gives it the
    agent-level retries only, and its sdk.js hands ``retry.provider`` to every request
    whatever ``enabled`` says. Turning both off is ``enabled: false`` with
    ``provider.maxRetries: 0``."""
    provider = settings.provider
    cap = provider.max_retry_delay_ms
    return RetryPolicy(
        max_attempts=1 + max(0, provider.max_retries),
        base_delay_ms=max(0, settings.base_delay_ms),
        max_delay_ms=settings.max_delay_ms if cap is None else cap,
    )
