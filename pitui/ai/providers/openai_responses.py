"""The OpenAI Responses adapter (``openai-responses``, ``POST /responses``).

Request building lives in :mod:`openai_responses_request`; this module streams the
reply (PI_SPEC 2.4, 1.4 item 6; PROVIDERS.md §3): output items become blocks, reasoning
summary parts add an extra ``\\n\\n`` delta and the final thinking text is recomputed
from the finished item, ``text_end`` is recomputed from the finished message item,
``function_call_arguments.done`` replaces the accumulated arguments, and
``response.completed`` / ``incomplete`` / ``failed`` / ``error`` end the turn.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from pitui.ai.event_stream import AssistantMessageEventStream, run_stream
from pitui.ai.events import (
    AssistantMessageEvent,
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
from pitui.ai.partial_json import parse_final_json, parse_streaming_json
from pitui.ai.providers._fast_events import delta_run, fast_event
from pitui.ai.providers._http import (
    ProviderError,
    fast_loads,
    parse_json_text,
)
from pitui.ai.providers._openai_common import (
    append_text,
    as_object,
    post_openai,
    require_object,
)
from pitui.ai.providers._sse import ServerSentEvent
from pitui.ai.providers.openai_responses_request import build_body, encode_text_signature
from pitui.ai.stream import empty_output
from pitui.ai.types import (
    AssistantMessage,
    Context,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    calculate_cost,
)

EARLY_END_MESSAGE = "Stream ended before the response was complete"
SERVICE_TIER_COST = {"flex": 0.5, "priority": 2.0}
_STATUS: dict[str, StopReason] = {
    "completed": "stop",
    "incomplete": "length",
    "failed": "error",
    "cancelled": "error",
    "in_progress": "stop",
    "queued": "stop",
}
_TERMINAL = frozenset({"response.completed", "response.incomplete"})
_RETRYABLE_CODES = frozenset({"server_is_overloaded", "server_error", "rate_limit_exceeded"})
_Run = Callable[[AssistantMessage, int, list[str]], Iterator[AssistantMessageEvent]]
_TEXT_RUN: _Run = delta_run(TextDeltaEvent)
_THINKING_RUN: _Run = delta_run(ThinkingDeltaEvent)
_TOOLCALL_RUN: _Run = delta_run(ToolCallDeltaEvent)


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one Responses reply of ``model`` to ``context``. Never raises."""
    body = functools.partial(_run, model, context, options)
    return run_stream(empty_output(model), body, options.signal)


async def _run(
    model: Model,
    context: Context,
    options: StreamOptions,
    events: AssistantMessageEventStream,
    output: AssistantMessage,
) -> None:
    body = build_body(model, context, options)
    new_reader = functools.partial(ResponseReader, model, events, output)
    await post_openai(model, options, "/responses", body, events, output, new_reader)


class ResponseReader:
    """Turns one response's events into block events on ``output``.

    Events are built without re-validation and queued; :meth:`flush`, which runs before
    every network read, re-parses streamed tool arguments once and pushes the queued
    events in one go, so the partial message is current whenever another task, the
    consumer included, can look at it. Consecutive deltas of a block are queued as a
    run, whose events are built as the consumer reads them (``push_lazy``).
    """

    def __init__(
        self, model: Model, events: AssistantMessageEventStream, output: AssistantMessage
    ) -> None:
        self._model = model
        self._events = events
        self._out = output
        self._item: dict[str, Any] | None = None
        self._block: TextContent | ThinkingContent | ToolCall | None = None
        self._position = -1
        self._raw_args = ""
        self._arg_pieces: list[str] = []
        # What the next flush pushes, in order: single events and runs of deltas.
        self._segments: list[Iterator[AssistantMessageEvent]] = []
        # The pieces of the run that is the last segment (None: there is none), and
        # the kind of delta event it makes.
        self._run_pieces: list[str] | None = None
        self._run: _Run = _TEXT_RUN
        output.usage = Usage()
        output.stop_reason = "stop"

    async def read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        """Consume events until a terminal one; a stream without one is an error."""
        try:
            await self._read(sse)
        finally:
            self.flush()

    def flush(self) -> None:
        """Apply the queued argument fragments and push the queued events."""
        self._settle_arguments()
        if self._segments:
            self._events.push_lazy(self._segments)
            self._segments.clear()
        self._run_pieces = None  # handed over: a later delta starts a new run

    def _queue(self, event: AssistantMessageEvent) -> None:
        self._segments.append(iter((event,)))
        self._run_pieces = None  # a later delta must come after this event

    def _delta(self, run: _Run, piece: str) -> None:
        """Queue a delta event of the open block: one more piece of the current run."""
        pieces = self._run_pieces
        if pieces is None or run is not self._run:
            pieces = self._run_pieces = []
            self._run = run
            self._segments.append(run(self._out, self._position, pieces))
        pieces.append(piece)

    def _settle_arguments(self) -> None:
        # Parsed once per network read, not once per fragment (quadratic for long ones).
        if self._arg_pieces:
            self._raw_args += "".join(self._arg_pieces)
            self._arg_pieces.clear()
            if isinstance(self._block, ToolCall):
                self._block.arguments = as_object(parse_streaming_json(self._raw_args))

    async def _read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        loads, handlers = fast_loads, _HANDLERS
        async for event in sse:
            data = event.data
            try:
                parsed = loads(data)
            except ValueError:
                if not data.strip():  # blank data is never JSON: tested only here
                    continue
                parsed = parse_json_text(data)
            if type(parsed) is not dict:
                parsed = require_object(parsed, "event")
            kind = str(parsed.get("type") or event.event)
            handler = handlers.get(kind)  # :meth:`event`, inlined: this runs per event
            if handler is not None:
                handler(self, parsed)
            if kind in _TERMINAL:
                return
        raise ProviderError(EARLY_END_MESSAGE, retryable=True)

    def event(self, kind: str, data: dict[str, Any]) -> None:
        """Apply one event."""
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, data)

    # ------------------------------------------------------------------ items

    def _item_added(self, data: dict[str, Any]) -> None:
        item = data.get("item")
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        if kind == "reasoning":
            self._open(item, ThinkingContent(thinking=""))
            self._emit(ThinkingStartEvent)
        elif kind == "message":
            self._open(item, TextContent(text=""))
            self._emit(TextStartEvent)
        elif kind == "function_call":
            call = ToolCall(
                id=f"{item.get('call_id')}|{item.get('id')}", name=str(item.get("name"))
            )
            self._open(item, call)
            self._raw_args = str(item.get("arguments") or "")
            self._emit(ToolCallStartEvent)

    def _emit(self, cls: type[TextStartEvent | ThinkingStartEvent | ToolCallStartEvent]) -> None:
        self._queue(fast_event(cls, content_index=self._position, partial=self._out))

    def _open(self, item: dict[str, Any], block: TextContent | ThinkingContent | ToolCall) -> None:
        self._settle_arguments()
        self._run_pieces = None  # runs never span blocks
        self._item = item
        self._block = block
        self._position = len(self._out.content)
        self._out.content.append(block)

    def _summary_part_added(self, data: dict[str, Any]) -> None:
        if self._item is not None and self._item.get("type") == "reasoning":
            part = data.get("part")
            self._summary().append(dict(part) if isinstance(part, dict) else {"text": ""})

    def _summary(self) -> list[dict[str, Any]]:
        assert self._item is not None
        summary = self._item.get("summary")
        if not isinstance(summary, list):
            summary = self._item["summary"] = []
        return summary

    def _summary_text(self, text: str) -> None:
        block = self._block
        if self._item is None or self._item.get("type") != "reasoning":
            return
        summary = self._summary()
        if not isinstance(block, ThinkingContent) or not summary:
            return
        append_text(block.__dict__, "thinking", text)
        append_text(summary[-1], "text", text)
        self._delta(_THINKING_RUN, text)

    def _summary_delta(self, data: dict[str, Any]) -> None:
        self._summary_text(str(data.get("delta") or ""))

    def _summary_part_done(self, data: dict[str, Any]) -> None:
        # pi separates summary parts with a blank line, streamed as its own delta.
        self._summary_text("\n\n")

    def _content_part_added(self, data: dict[str, Any]) -> None:
        part = data.get("part")
        if self._item is None or self._item.get("type") != "message" or not isinstance(part, dict):
            return
        if part.get("type") in ("output_text", "refusal"):
            content = self._item.get("content")
            if not isinstance(content, list):
                content = self._item["content"] = []
            content.append(dict(part))

    def _message_delta(self, data: dict[str, Any], part_type: str, key: str) -> None:
        block = self._block
        if self._item is None or self._item.get("type") != "message":
            return
        content = self._item.get("content")
        if not isinstance(block, TextContent) or not isinstance(content, list) or not content:
            return
        last = content[-1]
        if last.get("type") != part_type:
            return
        delta = str(data.get("delta") or "")
        append_text(block.__dict__, "text", delta)
        append_text(last, key, delta)
        self._delta(_TEXT_RUN, delta)

    def _text_delta(self, data: dict[str, Any]) -> None:
        self._message_delta(data, "output_text", "text")

    def _refusal_delta(self, data: dict[str, Any]) -> None:
        self._message_delta(data, "refusal", "refusal")

    def _arguments_delta(self, data: dict[str, Any]) -> None:
        block = self._block
        if not isinstance(block, ToolCall):
            return
        delta = str(data.get("delta") or "")
        self._arg_pieces.append(delta)
        self._delta(_TOOLCALL_RUN, delta)

    def _arguments_done(self, data: dict[str, Any]) -> None:
        block = self._block
        if isinstance(block, ToolCall) and isinstance(data.get("arguments"), str):
            self._arg_pieces.clear()
            self._raw_args = data["arguments"]
            block.arguments = as_object(parse_streaming_json(self._raw_args))

    def _item_done(self, data: dict[str, Any]) -> None:
        item = data.get("item")
        block = self._block
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        index = self._position
        out = self._out
        self._settle_arguments()
        event: ThinkingEndEvent | TextEndEvent | ToolCallEndEvent
        if kind == "reasoning" and isinstance(block, ThinkingContent):
            summary = item.get("summary") or []
            block.thinking = "\n\n".join(str(part.get("text") or "") for part in summary)
            block.thinking_signature = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            event = fast_event(
                ThinkingEndEvent, content_index=index, content=block.thinking, partial=out
            )
        elif kind == "message" and isinstance(block, TextContent):
            block.text = "".join(_part_text(part) for part in item.get("content") or [])
            block.text_signature = encode_text_signature(str(item.get("id")), item.get("phase"))
            event = fast_event(TextEndEvent, content_index=index, content=block.text, partial=out)
        elif kind == "function_call" and isinstance(block, ToolCall):
            raw = self._raw_args or str(item.get("arguments") or "{}")
            block.set_final_arguments(*parse_final_json(raw))
            event = fast_event(ToolCallEndEvent, content_index=index, tool_call=block, partial=out)
        else:
            return
        self._queue(event)
        self._item = None
        self._block = None

    # ------------------------------------------------------------------ terminal events

    def _completed(self, data: dict[str, Any]) -> None:
        response = data.get("response")
        response = response if isinstance(response, dict) else {}
        usage = response.get("usage")
        if isinstance(usage, dict):
            self._out.usage = parse_usage(usage)
        calculate_cost(self._model, self._out.usage)
        apply_service_tier(self._out.usage, response.get("service_tier"))
        self._out.stop_reason = _map_status(response.get("status"))
        has_calls = any(isinstance(b, ToolCall) for b in self._out.content)
        if has_calls and self._out.stop_reason == "stop":
            self._out.stop_reason = "toolUse"

    def _error(self, data: dict[str, Any]) -> None:
        code = data.get("code")
        retryable = isinstance(code, str) and code in _RETRYABLE_CODES
        raise ProviderError(f"Error Code {code}: {data.get('message')}", retryable=retryable)

    def _failed(self, data: dict[str, Any]) -> None:
        response = data.get("response")
        response = response if isinstance(response, dict) else {}
        error = response.get("error")
        details = response.get("incomplete_details")
        if isinstance(error, dict):
            message = f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}"
        elif isinstance(details, dict) and details.get("reason"):
            message = f"incomplete: {details['reason']}"
        else:
            message = "Unknown error (no error details in response)"
        raise ProviderError(message)


_HANDLERS = {
    "response.output_item.added": ResponseReader._item_added,
    "response.reasoning_summary_part.added": ResponseReader._summary_part_added,
    "response.reasoning_summary_text.delta": ResponseReader._summary_delta,
    "response.reasoning_summary_part.done": ResponseReader._summary_part_done,
    "response.content_part.added": ResponseReader._content_part_added,
    "response.output_text.delta": ResponseReader._text_delta,
    "response.refusal.delta": ResponseReader._refusal_delta,
    "response.function_call_arguments.delta": ResponseReader._arguments_delta,
    "response.function_call_arguments.done": ResponseReader._arguments_done,
    "response.output_item.done": ResponseReader._item_done,
    # pi reads only ``completed``; ``incomplete`` carries the same fields (status →
    # ``length``), so it is read the same way instead of ending as a bare stop.
    "response.completed": ResponseReader._completed,
    "response.incomplete": ResponseReader._completed,
    "response.failed": ResponseReader._failed,
    "error": ResponseReader._error,
}


def _part_text(part: Any) -> str:
    if not isinstance(part, dict):
        return ""
    key = "text" if part.get("type") == "output_text" else "refusal"
    return str(part.get(key) or "")


def _map_status(status: Any) -> StopReason:
    if not status:
        return "stop"
    mapped = _STATUS.get(status) if isinstance(status, str) else None
    if mapped is None:
        raise ProviderError(f"Unhandled stop reason: {status}")
    return mapped


def parse_usage(raw: dict[str, Any]) -> Usage:
    """Responses usage → pi usage (PI_SPEC 2.6); the total is taken as reported."""
    details = raw.get("input_tokens_details") or {}
    cached = _int(details.get("cached_tokens") if isinstance(details, dict) else 0)
    return Usage(
        input=_int(raw.get("input_tokens")) - cached,
        output=_int(raw.get("output_tokens")),
        cache_read=cached,
        cache_write=0,
        total_tokens=_int(raw.get("total_tokens")),
    )


def apply_service_tier(usage: Usage, service_tier: Any) -> None:
    """Scale every cost component for the ``flex`` (×0.5) and ``priority`` (×2) tiers."""
    factor = SERVICE_TIER_COST.get(service_tier) if isinstance(service_tier, str) else None
    if factor is None:
        return
    cost = usage.cost
    cost.input *= factor
    cost.output *= factor
    cost.cache_read *= factor
    cost.cache_write *= factor
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
