"""The summarisation calls of a compaction (pi's ``generateSummary`` and ``compact``, §6.5).

Requests go through :func:`pitui.ai.stream.complete` (which never raises); a reply that
ends in ``error`` becomes :class:`CompactionError` with pi's wording. For a split turn the
history summary and the turn-prefix summary run concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field

from pitui.agent.messages import AgentMessage
from pitui.ai.abort import AbortSignal
from pitui.ai.options import StreamOptions
from pitui.ai.types import AssistantMessage, Context, Model, TextContent, UserMessage
from pitui.core.compaction.cut import CompactionPreparation
from pitui.core.compaction.files import compute_file_lists, format_file_operations
from pitui.core.compaction.prompts import (
    NO_PRIOR_HISTORY,
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_CONTEXT_SEPARATOR,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from pitui.core.compaction.serialize import serialize_agent_messages
from pitui.core.retry import complete_with_retries
from pitui.core.settings import RetrySettings
from pitui.errors import PituiError


class CompactionError(PituiError):
    """A compaction could not be made (pi's texts: ``Summarization failed: …`` …)."""

    title = "Compaction failed"


class CompactionCancelled(CompactionError):
    """The compaction was aborted (``Compaction cancelled``)."""

    title = "Compaction cancelled"


@dataclass
class CompactionResult:
    """What a compaction entry stores (pi's ``CompactionResult``)."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, list[str]] = field(default_factory=dict)


def history_prompt(
    conversation: str, previous_summary: str | None, custom_instructions: str | None
) -> str:
    """The user text of a history-summary request."""
    instructions = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        instructions = f"{instructions}\n\nAdditional focus: {custom_instructions}"
    text = f"<conversation>\n{conversation}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    return text + instructions


def turn_prefix_prompt(conversation: str) -> str:
    """The user text of a turn-prefix request."""
    return f"<conversation>\n{conversation}\n</conversation>\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"


def summary_context(prompt: str) -> Context:
    """A summarisation request: pi's system prompt and one user message."""
    return Context(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[UserMessage(content=[TextContent(text=prompt)])],
    )


async def summary_reply(
    model: Model, prompt: str, options: StreamOptions, retry: RetrySettings | None
) -> AssistantMessage:
    """The reply to one summary request, under the ``retry`` settings (pi's defaults
    when none are given)."""
    return await complete_with_retries(
        model, summary_context(prompt), options, retry if retry is not None else RetrySettings()
    )


def reply_text(reply: AssistantMessage) -> str:
    """All text blocks of a reply joined by newlines."""
    return "\n".join(b.text for b in reply.content if isinstance(b, TextContent))


async def generate_summary(
    messages: Sequence[AgentMessage],
    model: Model,
    reserve_tokens: int,
    api_key: str | None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
    retry: RetrySettings | None = None,
) -> str:
    """Summarise ``messages`` (merging into ``previous_summary`` when given).

    Raises:
        CompactionError: ``Summarization failed: <error>`` when the reply is an error.
    """
    prompt = history_prompt(
        serialize_agent_messages(messages), previous_summary, custom_instructions
    )
    options = StreamOptions(api_key=api_key, signal=signal, max_tokens=int(0.8 * reserve_tokens))
    if model.reasoning:
        options.reasoning = "high"
    reply = await summary_reply(model, prompt, options, retry)
    if reply.stop_reason == "error":
        raise CompactionError(f"Summarization failed: {reply.error_message or 'Unknown error'}")
    return reply_text(reply)


async def generate_turn_prefix_summary(
    messages: Sequence[AgentMessage],
    model: Model,
    reserve_tokens: int,
    api_key: str | None,
    signal: AbortSignal | None = None,
    retry: RetrySettings | None = None,
) -> str:
    """Summarise the prefix of a split turn (half the budget, no reasoning).

    Raises:
        CompactionError: ``Turn prefix summarization failed: <error>``.
    """
    prompt = turn_prefix_prompt(serialize_agent_messages(messages))
    options = StreamOptions(api_key=api_key, signal=signal, max_tokens=int(0.5 * reserve_tokens))
    reply = await summary_reply(model, prompt, options, retry)
    if reply.stop_reason == "error":
        message = reply.error_message or "Unknown error"
        raise CompactionError(f"Turn prefix summarization failed: {message}")
    return reply_text(reply)


async def _both(first: Awaitable[str], second: Awaitable[str]) -> tuple[str, str]:
    """Run two summaries concurrently; if one fails, cancel the other."""
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    try:
        a, b = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return a, b


async def _immediate(text: str) -> str:
    return text


async def compact(
    preparation: CompactionPreparation,
    model: Model,
    api_key: str | None,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
    retry: RetrySettings | None = None,
) -> CompactionResult:
    """Summarise a prepared compaction (pi's ``compact``) and add the file-operation block.

    Raises:
        CompactionError: a summarisation request failed.
        CompactionCancelled: ``signal`` was aborted.
    """
    reserve = preparation.settings.reserve_tokens
    history = preparation.messages_to_summarize()
    prefix = preparation.turn_prefix_messages()
    previous = preparation.previous_summary
    if preparation.is_split_turn and prefix:
        history_call = (
            generate_summary(
                history, model, reserve, api_key, signal, custom_instructions, previous, retry
            )
            if history
            else _immediate(NO_PRIOR_HISTORY)
        )
        prefix_call = generate_turn_prefix_summary(prefix, model, reserve, api_key, signal, retry)
        history_text, prefix_text = await _both(history_call, prefix_call)
        summary = history_text + TURN_CONTEXT_SEPARATOR + prefix_text
    else:
        summary = await generate_summary(
            history, model, reserve, api_key, signal, custom_instructions, previous, retry
        )
    if signal is not None and signal.aborted:
        raise CompactionCancelled("Compaction cancelled")
    read_files, modified_files = compute_file_lists(preparation.file_ops)
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )
