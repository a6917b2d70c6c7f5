"""Did a reply fail because the conversation no longer fits the model? (PI_SPEC §2.7)

Providers say so in their own words; these are the texts pi recognises. Some providers
accept an overflowing request silently, which shows only as reported input larger than the
context window. Rate-limit errors (429, "tokens per min") are deliberately not overflow:
compacting would not help them.
"""

from __future__ import annotations

import functools
import re

from pitui.ai.types import AssistantMessage

__all__ = ["OVERFLOW_SOURCES", "is_context_overflow", "overflow_patterns"]

#: Error texts meaning "context overflow", matched case-insensitively anywhere in the message
#: (compiled by :func:`overflow_patterns` when a reply first fails: most runs never do).
OVERFLOW_SOURCES: tuple[str, ...] = (
    r"prompt is too long",  # Anthropic
    r"input is too long for requested model",  # Amazon Bedrock
    r"exceeds the context window",  # OpenAI (Completions and Responses)
    r"input token count.*exceeds the maximum",  # Google Gemini
    r"maximum prompt length is \d+",  # xAI
    r"reduce the length of the messages",  # Groq
    r"maximum context length is \d+ tokens",  # OpenRouter
    r"exceeds the limit of \d+",  # GitHub Copilot
    r"exceeds the available context size",  # llama.cpp
    r"greater than the context length",  # LM Studio
    r"context window exceeds limit",  # MiniMax
    r"exceeded model token limit",  # Kimi For Coding
    r"too large for model with \d+ maximum context length",  # Mistral
    r"model_context_window_exceeded",  # z.ai finish reason surfaced as error text
    r"context[_ ]length[_ ]exceeded",  # generic
    r"too many tokens",  # generic
    r"token limit exceeded",  # generic
)


@functools.cache
def overflow_patterns() -> tuple[re.Pattern[str], ...]:
    """:data:`OVERFLOW_SOURCES` compiled, once."""
    # ASCII: like JS regexps, \d means [0-9] and case folding stays within ASCII letters.
    return tuple(re.compile(source, re.IGNORECASE | re.ASCII) for source in OVERFLOW_SOURCES)


# Cerebras answers an overflowing request with a bare 400/413 and no body (429 is rate limit).
_NO_BODY_STATUS = r"^4(00|13)\s*(status code)?\s*\(no body\)"
# JS ``.`` does not match line terminators; Python's ``.`` only excludes ``\n``.
_JS_LINE_TERMINATORS = "[\r\u2028\u2029]"


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """True when ``message`` reports that its request overflowed the context window.

    Args:
        message: A finished assistant message.
        context_window: The model's context window; when given, a successful reply whose
            input (plus cache reads) exceeds it counts as a silent overflow.
    """
    error = message.error_message
    if message.stop_reason == "error" and error and _is_overflow_text(error):
        return True
    if context_window and message.stop_reason == "stop":
        return message.usage.input + message.usage.cache_read > context_window
    return False


def _is_overflow_text(error: str) -> bool:
    # Keep JS semantics for ".*": it never crosses \r, \u2028 or \u2029 either.
    text = re.sub(_JS_LINE_TERMINATORS, "\n", error)
    return any(p.search(text) for p in overflow_patterns()) or bool(
        re.match(_NO_BODY_STATUS, error, re.IGNORECASE)
    )
