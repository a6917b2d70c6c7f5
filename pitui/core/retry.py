"""Which failed replies are worth retrying automatically (PI_SPEC §6.10)."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from pitui.ai.options import RetryPolicy, retry_delay_ms
from pitui.ai.overflow import is_context_overflow
from pitui.ai.types import AssistantMessage
from pitui.lazy_pattern import lazy_pattern

if TYPE_CHECKING:
    from pitui.ai.abort import AbortSignal
    from pitui.ai.options import StreamOptions
    from pitui.ai.types import Context, Model
    from pitui.core.settings import RetrySettings

__all__ = [
    "complete_with_retries",
    "is_retryable_error",
    "provider_retry_policy",
    "retry_delay_ms",
]

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


async def complete_with_retries(
    model: Model, context: Context, options: StreamOptions, settings: RetrySettings
) -> AssistantMessage:
    """One request outside a turn (a compaction's or a branch's summary) under the whole
    ``retry`` policy, as pi 1.6's ``completeSummarization``: the request's own retries
    (:func:`provider_retry_policy`), then, while ``enabled``, up to ``maxRetries`` more
    requests after a transient error, ``baseDelayMs × 2^(n−1)`` apart. An abort during
    a wait ends it as ``aborted``; other errors come back as the last reply."""
    from pitui.ai.stream import complete  # the provider stack: with the first request

    options.retry = provider_retry_policy(settings)
    attempts = max(0, settings.max_retries) if settings.enabled else 0
    attempt = 0
    while True:
        reply = await complete(model, context, options)
        if attempt >= attempts or not is_retryable_error(reply, model.context_window):
            return reply
        attempt += 1
        if await _aborted_during(retry_delay_ms(settings.base_delay_ms, attempt), options.signal):
            return reply.model_copy(update={"stop_reason": "aborted", "error_message": None})


async def _aborted_during(delay_ms: int, signal: AbortSignal | None) -> bool:
    """Wait ``delay_ms``; True when ``signal`` was aborted first."""
    if signal is None:
        await asyncio.sleep(delay_ms / 1000)
        return False
    try:
        await asyncio.wait_for(signal.wait(), delay_ms / 1000)
    except TimeoutError:
        return False
    return True
