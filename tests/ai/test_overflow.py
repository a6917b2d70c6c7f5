"""is_context_overflow (PI_SPEC §2.7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.ai.overflow import is_context_overflow, overflow_patterns
from pitui.ai.types import AssistantMessage, StopReason, Usage

FIXTURES = Path(__file__).parent.parent / "fixtures" / "providers"


def reply(
    error: str | None = None,
    stop_reason: StopReason = "error",
    input_tokens: int = 0,
    cache_read: int = 0,
) -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions",
        provider="zai",
        model="glm-4.6",
        stop_reason=stop_reason,
        error_message=error,
        usage=Usage(input=input_tokens, cache_read=cache_read),
    )


def fixture_message(name: str) -> str:
    body = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    message: str = body["error"]["message"]
    return message


# Real texts, one per provider pattern (from pi's overflow.ts and provider docs).
OVERFLOW_TEXTS = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    "400 Input is too long for requested model.",
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    "Please reduce the length of the messages or completion.",
    "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000.",
    "prompt token count of 130000 exceeds the limit of 128000",
    "the request exceeds the available context size, try increasing it",
    "tokens to keep from the initial prompt is greater than the context length",
    "invalid params, context window exceeds limit (2013)",
    "Your request exceeded model token limit: 262144 (requested: 300000)",
    "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum "
    "context length",
    "model_context_window_exceeded",
    "context_length_exceeded",
    "Context length exceeded",
    "Too many tokens in request",
    "Token limit exceeded for this request",
    "400 status code (no body)",
    "413 status code (no body)",
    "413 (no body)",
    "400  STATUS CODE  (No Body)",
    "PROMPT IS TOO LONG",
]


@pytest.mark.parametrize("text", OVERFLOW_TEXTS)
def test_provider_overflow_texts_are_detected(text: str) -> None:
    assert is_context_overflow(reply(text))


def test_every_pattern_has_an_example() -> None:
    for pattern in overflow_patterns():
        assert any(pattern.search(text) for text in OVERFLOW_TEXTS), pattern.pattern


def test_recorded_anthropic_overflow_body() -> None:
    assert is_context_overflow(reply(fixture_message("anthropic_error_400_context.json")))


@pytest.mark.parametrize(
    "name",
    [
        "anthropic_error_429.json",
        "openai_error_429.json",
        "openai_error_429_insufficient_quota.json",
    ],
)
def test_recorded_rate_limit_bodies_are_not_overflow(name: str) -> None:
    assert not is_context_overflow(reply(fixture_message(name)))


@pytest.mark.parametrize(
    "text",
    [
        "429 status code (no body)",
        "Rate limit reached for gpt-4 on tokens per min (TPM): Limit 10000, Used 9348",
        "429 Too Many Requests",
        "Overloaded",
        "Request was aborted",
        "error: 400 status code (no body)",  # the Cerebras pattern is anchored at the start
        "maximum prompt length is unknown",  # the digits are part of the pattern
        "maximum prompt length is ١٢٣",  # JS \d is ASCII only
        "An unknown error occurred",
        "",
    ],
)
def test_other_errors_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(reply(text))


def test_wildcard_does_not_cross_line_terminators() -> None:
    assert is_context_overflow(reply("input token count 5 exceeds the maximum"))
    assert not is_context_overflow(reply("input token count\nexceeds the maximum"))
    assert not is_context_overflow(reply("input token count\u2028exceeds the maximum"))


@pytest.mark.parametrize("stop_reason", ["stop", "length", "toolUse", "aborted"])
def test_overflow_text_counts_only_for_error_stop_reason(stop_reason: StopReason) -> None:
    assert not is_context_overflow(reply("prompt is too long", stop_reason=stop_reason))


def test_silent_overflow_uses_input_plus_cache_reads() -> None:
    assert is_context_overflow(reply(None, "stop", input_tokens=100_001), 100_000)
    assert is_context_overflow(reply(None, "stop", input_tokens=60_000, cache_read=40_001), 100_000)
    assert not is_context_overflow(reply(None, "stop", input_tokens=100_000), 100_000)
    assert not is_context_overflow(reply(None, "stop", input_tokens=10**9))  # no window given
    assert not is_context_overflow(reply(None, "stop", input_tokens=10**9), 0)


@pytest.mark.parametrize("stop_reason", ["length", "toolUse"])
def test_silent_overflow_needs_a_stop_reply(stop_reason: StopReason) -> None:
    assert not is_context_overflow(reply(None, stop_reason, input_tokens=200_001), 100_000)


def test_error_without_message_is_not_overflow() -> None:
    assert not is_context_overflow(reply(None, "error", input_tokens=200_001), 100_000)
