"""The offline demo provider (api ``demo``): a scripted model that needs no network or key.

It streams like a real provider, with the exact event protocol of PI_SPEC §1.4: ``start``,
then a thinking block, a text block and any tool calls (``*_start`` → ``*_delta``… →
``*_end``), then ``done``. Text arrives in small chunks at a configurable pace
(``PITUI_DEMO_PACE_MS``, default 15 ms per chunk). Usage is estimated at four characters
per token and costs nothing. Aborts end the stream with ``aborted`` via ``run_stream``.
What it says comes from :mod:`pitui.ai.providers.demo_script`.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re

from pitui.ai.event_stream import AssistantMessageEventStream, run_stream
from pitui.ai.events import (
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pitui.ai.options import StreamOptions
from pitui.ai.partial_json import parse_streaming_json
from pitui.ai.providers.demo_script import DemoReply, PlannedCall, plan_reply
from pitui.ai.stream import empty_output
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    calculate_cost,
)

PACE_ENV = "PITUI_DEMO_PACE_MS"
DEFAULT_PACE_MS = 15.0
_WORDS_PER_CHUNK = 3
# pi's token estimate counts an image as 1200 tokens (4800 characters).
_IMAGE_CHARS = 4800


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream the demo model's scripted reply to ``context``. Never raises."""
    output = empty_output(model)
    pace_s = pace_ms() / 1000

    async def body(events: AssistantMessageEventStream, out: AssistantMessage) -> None:
        reply = plan_reply(context)
        out.usage.input = estimate_tokens(_context_chars(context))
        events.push(StartEvent(partial=out))
        await _stream_thinking(events, out, reply.thinking, pace_s)
        await _stream_text(events, out, reply.text, pace_s)
        first = 1 + _tool_calls_so_far(context)
        turn = _turn_token(context)
        for offset, call in enumerate(reply.calls):
            await _stream_call(events, out, call, f"demo_{first + offset}_{turn}", pace_s)
        _finish_usage(model, out, reply)
        out.stop_reason = "toolUse" if reply.calls else "stop"

    return run_stream(output, body, options.signal)


def pace_ms() -> float:
    """Delay per chunk from ``PITUI_DEMO_PACE_MS`` (invalid or negative → the default)."""
    raw = os.environ.get(PACE_ENV)
    if raw is None:
        return DEFAULT_PACE_MS
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_PACE_MS
    return value if value >= 0 else DEFAULT_PACE_MS


def chunk_text(text: str, words: int = _WORDS_PER_CHUNK) -> list[str]:
    """Split ``text`` into pieces of a few words; joined they give ``text`` back exactly."""
    tokens = re.findall(r"\s+|\S+\s*", text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def estimate_tokens(chars: int) -> int:
    """Tokens for ``chars`` characters at pi's rate of four characters per token."""
    return math.ceil(chars / 4)


async def _pause(pace_s: float) -> None:
    # Even at pace 0 yield to the loop, so an abort can land between chunks.
    await asyncio.sleep(pace_s)


async def _stream_thinking(
    events: AssistantMessageEventStream, out: AssistantMessage, text: str, pace_s: float
) -> None:
    block = ThinkingContent(thinking="")
    out.content.append(block)
    index = len(out.content) - 1
    events.push(ThinkingStartEvent(content_index=index, partial=out))
    for piece in chunk_text(text):
        await _pause(pace_s)
        block.thinking += piece
        events.push(ThinkingDeltaEvent(content_index=index, delta=piece, partial=out))
    events.push(ThinkingEndEvent(content_index=index, content=block.thinking, partial=out))


async def _stream_text(
    events: AssistantMessageEventStream, out: AssistantMessage, text: str, pace_s: float
) -> None:
    block = TextContent(text="")
    out.content.append(block)
    index = len(out.content) - 1
    events.push(TextStartEvent(content_index=index, partial=out))
    for piece in chunk_text(text):
        await _pause(pace_s)
        block.text += piece
        events.push(TextDeltaEvent(content_index=index, delta=piece, partial=out))
    events.push(TextEndEvent(content_index=index, content=block.text, partial=out))


async def _stream_call(
    events: AssistantMessageEventStream,
    out: AssistantMessage,
    call: PlannedCall,
    call_id: str,
    pace_s: float,
) -> None:
    block = ToolCall(id=call_id, name=call.name, arguments={})
    out.content.append(block)
    index = len(out.content) - 1
    events.push(ToolCallStartEvent(content_index=index, partial=out))
    raw = ""
    for piece in _json_pieces(call.arguments):
        await _pause(pace_s)
        raw += piece
        parsed = parse_streaming_json(raw)
        block.arguments = parsed if isinstance(parsed, dict) else {}
        events.push(ToolCallDeltaEvent(content_index=index, delta=piece, partial=out))
    block.arguments = dict(call.arguments)
    events.push(
        ToolCallEndEvent(content_index=index, tool_call=block.model_copy(deep=True), partial=out)
    )


def _json_pieces(arguments: dict[str, object], size: int = 24) -> list[str]:
    text = json.dumps(arguments, ensure_ascii=False)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _finish_usage(model: Model, out: AssistantMessage, reply: DemoReply) -> None:
    produced = len(reply.thinking) + len(reply.text)
    produced += sum(len(c.name) + len(json.dumps(c.arguments)) for c in reply.calls)
    usage = out.usage
    usage.output = estimate_tokens(produced)
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    calculate_cost(model, usage)


def _context_chars(context: Context) -> int:
    chars = len(context.system_prompt or "")
    for tool in context.tools or []:
        chars += len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters))
    for message in context.messages:
        chars += _message_chars(message)
    return chars


def _message_chars(message: UserMessage | AssistantMessage | ToolResultMessage) -> int:
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return len(message.content)
    chars = 0
    for block in message.content:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += len(block.thinking)
        elif isinstance(block, ToolCall):
            chars += len(block.name) + len(json.dumps(block.arguments))
        elif isinstance(block, ImageContent):
            chars += _IMAGE_CHARS
    return chars


def _turn_token(context: Context) -> str:
    """The last user message's time, in base 36: tool call ids are unique in a session
    (numbering alone restarts after a compaction, or on a new branch)."""
    stamp = next((m.timestamp for m in reversed(context.messages) if isinstance(m, UserMessage)), 0)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    value, text = max(0, int(stamp)), ""
    while True:
        value, digit = divmod(value, 36)
        text = digits[digit] + text
        if not value:
            return text


def _tool_calls_so_far(context: Context) -> int:
    return sum(
        1
        for message in context.messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall)
    )
