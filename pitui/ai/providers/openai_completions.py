"""The OpenAI Chat Completions adapter (``openai-completions``), for OpenAI and every
compatible server: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, DeepSeek, Groq, z.ai …

Request building lives in :mod:`openai_completions_request`; this module streams the
reply (PI_SPEC 2.3, 2.6; PROVIDERS.md §2/2a): content and reasoning deltas, tool calls
(a new block when the id changes; ``index`` is ignored as pi does), encrypted
``reasoning_details`` attached to tool calls, finish reasons, usage from whichever chunk
carries it, error objects inside a 200 stream, and a stream that stops too early.
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
from pitui.ai.providers.openai_compat import resolve_compat
from pitui.ai.providers.openai_completions_request import build_body
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

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
_STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end": "stop",
    "length": "length",
    "function_call": "toolUse",
    "tool_calls": "toolUse",
    "content_filter": "error",
}
EARLY_END_MESSAGE = "Stream ended before the response was complete"
_Run = Callable[[AssistantMessage, int, list[str]], Iterator[AssistantMessageEvent]]
_TEXT_RUN: _Run = delta_run(TextDeltaEvent)
_THINKING_RUN: _Run = delta_run(ThinkingDeltaEvent)
_TOOLCALL_RUN: _Run = delta_run(ToolCallDeltaEvent)


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one Chat Completions reply of ``model`` to ``context``. Never raises."""
    body = functools.partial(_run, model, context, options)
    return run_stream(empty_output(model), body, options.signal)


async def _run(
    model: Model,
    context: Context,
    options: StreamOptions,
    events: AssistantMessageEventStream,
    output: AssistantMessage,
) -> None:
    body = build_body(model, context, options, resolve_compat(model))
    new_reader = functools.partial(ChunkReader, model, events, output)
    await post_openai(model, options, "/chat/completions", body, events, output, new_reader)


class ChunkReader:
    """Turns one response's chunks into block events on ``output``.

    Hot path, per chunk: one orjson parse, a few dict lookups and the piece queued on
    the open block's current run. :meth:`flush`, which runs before every network read,
    joins the queued pieces into the block (tool arguments re-parsed once) and pushes
    the burst's events in one go: the partial message is current whenever another task,
    the consumer included, can look at it. A run's delta events (one per piece) are
    built as the consumer reads them (``push_lazy``).
    """

    def __init__(
        self, model: Model, events: AssistantMessageEventStream, output: AssistantMessage
    ) -> None:
        self._model = model
        self._events = events
        self._out = output
        self._block: TextContent | ThinkingContent | ToolCall | None = None
        self._position = -1
        # The open block's deltas since the last settle, each one delta event (tool call
        # fragments may be empty). One list for the reader's life, so the read loop can
        # hold on to its ``append``; a settle hands the run of events a copy.
        self._pending: list[str] = []
        self._run: _Run = _TEXT_RUN
        self._raw_args = ""
        self._args_stale = False
        # What the next flush pushes, in order: single events and delta runs.
        self._segments: list[Iterator[AssistantMessageEvent]] = []
        self._finished = False
        # A retried attempt starts from a clean slate (no content reached the user yet).
        output.usage = Usage()
        output.stop_reason = "stop"

    async def read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        """Consume the stream up to ``[DONE]``, then close the open block."""
        try:
            await self._read(sse)
        finally:
            self.flush()

    async def _read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        done = False
        loads, chunk, append = fast_loads, self.chunk, self._pending.append
        async for event in sse:
            data = event.data
            try:
                parsed = loads(data)
            except ValueError:
                # Blank data and ``[DONE]`` are never JSON, so they are tested only here.
                if not data or data.isspace():
                    continue
                if data.startswith("[DONE]"):  # as the OpenAI SDK tests it
                    done = True
                    break
                parsed = parse_json_text(data)
            if type(parsed) is not dict:
                parsed = require_object(parsed, "chunk")
            # The common chunk, inline: one more piece of the open text block and nothing
            # else (no error, usage or finish reason), as :meth:`chunk` would take it.
            # Subscripts stand in for type checks: of JSON values only a dict takes a
            # string key, so anything else raises and goes the general way.
            try:
                choice = parsed["choices"][0]
                delta = choice["delta"]
                content = delta["content"] if len(delta) == 1 else None
            except (LookupError, TypeError):
                content = None
            if (
                type(content) is str
                and content
                and type(self._block) is TextContent
                and "error" not in parsed  # absent from content chunks: a cheaper test
                and not parsed.get("usage")  # OpenAI sends "usage": null on every chunk
                and "usage" not in choice
                and not choice.get("finish_reason")  # null on every chunk but the last
            ):
                append(content)
            else:
                chunk(parsed)
        if not done and not self._finished:
            raise ProviderError(EARLY_END_MESSAGE, retryable=True)
        self._close_block()

    def flush(self) -> None:
        """Join the queued pieces into the open block and push the queued events."""
        self._settle_block()
        if self._segments:
            self._events.push_lazy(self._segments)
            self._segments.clear()

    def _emit(self, event: AssistantMessageEvent) -> None:
        self._segments.append(iter((event,)))

    def chunk(self, chunk: dict[str, Any]) -> None:
        """Apply one parsed chunk."""
        error = chunk.get("error")
        if error:
            raise _stream_error(error)
        usage = chunk.get("usage")
        if usage:
            self._set_usage(usage)
        choices = chunk.get("choices")
        if type(choices) is not list or not choices:
            return
        choice = choices[0]
        if type(choice) is not dict:
            return
        if not usage and choice.get("usage"):
            # Some servers (Moonshot) put usage on the choice.
            self._set_usage(choice["usage"])
        finish = choice.get("finish_reason")
        if finish:
            self._finished = True
            self._out.stop_reason = _map_finish_reason(finish)
        delta = choice.get("delta")
        if type(delta) is dict:
            self._delta(delta)

    def _delta(self, delta: dict[str, Any]) -> None:
        content = delta.get("content")
        if content and type(content) is str:
            self._text(content)
        for field in REASONING_FIELDS:
            value = delta.get(field)
            # Use only the first non-empty field: some servers send the same text twice.
            if value and type(value) is str:
                self._thinking(field, value)
                break
        tool_calls = delta.get("tool_calls")
        if type(tool_calls) is list:
            for call in tool_calls:
                if type(call) is dict:
                    self._tool_call(call)
        details = delta.get("reasoning_details")
        if type(details) is list:
            self._attach_reasoning_details(details)

    # ------------------------------------------------------------------ blocks

    def _text(self, text: str) -> None:
        if type(self._block) is not TextContent:
            self._close_block()
            self._open(TextContent(text=""), TextStartEvent, _TEXT_RUN)
        self._pending.append(text)

    def _thinking(self, field: str, text: str) -> None:
        if type(self._block) is not ThinkingContent:
            self._close_block()
            # The signature records the field, so the reasoning is echoed back in it.
            self._open(
                ThinkingContent(thinking="", thinking_signature=field),
                ThinkingStartEvent,
                _THINKING_RUN,
            )
        self._pending.append(text)

    def _tool_call(self, call: dict[str, Any]) -> None:
        call_id = call.get("id") or ""
        raw_function = call.get("function")
        function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
        name = function.get("name") or ""
        block = self._block
        if not isinstance(block, ToolCall) or (call_id and block.id != call_id):
            self._close_block()
            block = ToolCall(id=str(call_id), name=str(name), arguments={})
            self._raw_args = ""
            self._open(block, ToolCallStartEvent, _TOOLCALL_RUN)
        if call_id:
            block.id = str(call_id)
        if name:
            block.name = str(name)
        fragment = _arguments_text(function.get("arguments"))
        # One delta event per call chunk, even with no fragment; joining "" is harmless.
        self._pending.append(fragment)
        if fragment:
            # Parsed once per flush, not once per fragment (quadratic for long arguments).
            self._args_stale = True

    def _attach_reasoning_details(self, details: list[Any]) -> None:
        for detail in details:
            if not isinstance(detail, dict) or detail.get("type") != "reasoning.encrypted":
                continue
            if not detail.get("id") or not detail.get("data"):
                continue
            for block in self._out.content:
                if isinstance(block, ToolCall) and block.id == detail["id"]:
                    block.thought_signature = json.dumps(
                        detail, ensure_ascii=False, separators=(",", ":")
                    )
                    break

    def _open(
        self,
        block: TextContent | ThinkingContent | ToolCall,
        start: type[TextStartEvent | ThinkingStartEvent | ToolCallStartEvent],
        run: _Run,
    ) -> None:
        self._block = block
        self._position = len(self._out.content)
        self._out.content.append(block)
        self._emit(fast_event(start, content_index=self._position, partial=self._out))
        self._run = run

    def _settle_block(self) -> None:
        """Bring the open block up to date with the pieces queued on it.

        Their delta events are queued here too, as a run: while a block is open no
        other event is queued, so they come after its start event and before its end.
        """
        block = self._block
        pending = self._pending
        if pending:
            joined = "".join(pending)
            self._segments.append(self._run(self._out, self._position, pending.copy()))
            pending.clear()
            if isinstance(block, TextContent):
                append_text(block.__dict__, "text", joined)
            elif isinstance(block, ThinkingContent):
                append_text(block.__dict__, "thinking", joined)
            else:
                self._raw_args += joined
        if self._args_stale and isinstance(block, ToolCall):
            self._args_stale = False
            block.arguments = as_object(parse_streaming_json(self._raw_args))

    def _close_block(self) -> None:
        self._settle_block()
        block, self._block = self._block, None
        index = self._position
        out = self._out
        event: TextEndEvent | ThinkingEndEvent | ToolCallEndEvent
        if isinstance(block, TextContent):
            event = fast_event(TextEndEvent, content_index=index, content=block.text, partial=out)
        elif isinstance(block, ThinkingContent):
            event = fast_event(
                ThinkingEndEvent, content_index=index, content=block.thinking, partial=out
            )
        elif isinstance(block, ToolCall):
            block.set_final_arguments(*parse_final_json(self._raw_args))
            self._raw_args = ""
            event = fast_event(ToolCallEndEvent, content_index=index, tool_call=block, partial=out)
        else:
            return
        self._emit(event)

    def _set_usage(self, raw: Any) -> None:
        if isinstance(raw, dict):
            self._out.usage = parse_usage(raw, self._model)


def parse_usage(raw: dict[str, Any], model: Model) -> Usage:
    """Chat Completions usage → pi usage (PI_SPEC 2.6), with cost filled in."""
    prompt_details = raw.get("prompt_tokens_details") or {}
    completion_details = raw.get("completion_tokens_details") or {}
    cached = _int(prompt_details.get("cached_tokens"))
    reasoning = _int(completion_details.get("reasoning_tokens"))
    input_tokens = _int(raw.get("prompt_tokens")) - cached
    # pi adds reasoning tokens to output and computes the total itself (Groq omits them).
    output_tokens = _int(raw.get("completion_tokens")) + reasoning
    usage = Usage(
        input=input_tokens,
        output=output_tokens,
        cache_read=cached,
        cache_write=0,
        total_tokens=input_tokens + output_tokens + cached,
    )
    calculate_cost(model, usage)
    return usage


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _arguments_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    # A few servers send the arguments as an object rather than a JSON string.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _map_finish_reason(reason: Any) -> StopReason:
    mapped = _STOP_REASONS.get(reason) if isinstance(reason, str) else None
    if mapped is None:
        raise ProviderError(f"Unhandled stop reason: {reason}")
    return mapped


def _stream_error(error: Any) -> ProviderError:
    """An error object inside a 200 stream (OpenRouter), as the OpenAI SDK reports it."""
    if not isinstance(error, dict):
        return ProviderError(str(error))
    message = str(error.get("message") or json.dumps(error))
    metadata = error.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    if raw:
        message += f"\n{raw}"
    code = error.get("code")
    status = code if isinstance(code, int) else None
    retryable = status is not None and (status == 429 or status >= 500)
    return ProviderError(message, status=status, retryable=retryable)
