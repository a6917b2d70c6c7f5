"""Which failed replies are worth retrying automatically (PI_SPEC §6.10)."""

from __future__ import annotations

import re

from pitui.ai.overflow import is_context_overflow
from pitui.ai.types import AssistantMessage
from pitui.lazy_pattern import lazy_pattern

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


def retry_delay_ms(base_delay_ms: int, attempt: int) -> int:
    """``base × 2^(attempt−1)``: 2 s, 4 s, 8 s with pi's default base."""
    return base_delay_ms * (1 << max(0, attempt - 1))
