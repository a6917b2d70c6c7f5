"""The anthropic-messages adapter: ``POST /v1/messages`` streamed, as pi reads it.

Request shape lives in :mod:`pitui.ai.providers.anthropic_request`; this module reads the
SSE stream (PI_SPEC §2.2 wire → pi, §2.6 usage, §1.3 stop reasons) into the partial
:class:`AssistantMessage` and pushes the §1.4 events.

Hot path, per delta (inlined in :meth:`_StreamReader.read`): one orjson parse, a dict
lookup by the server's block index and the piece queued on its block's current run.
Queued pieces are joined into the block (and tool arguments re-parsed) before every
network read, so the partial message is current whenever another task can look at it;
then the burst's events are pushed, a run's delta events (one per piece, built without
re-validation) created only as the consumer reads them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, ClassVar

from pitui.ai.event_stream import AssistantMessageEventStream, error_stream, run_stream
from pitui.ai.events import (
    AssistantMessageEvent,
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
from pitui.ai.keys import env_api_key
from pitui.ai.options import StreamOptions
from pitui.ai.partial_json import parse_final_json, parse_streaming_json
from pitui.ai.providers._fast_events import delta_run, fast_event
from pitui.ai.providers._http import (
    ProviderError,
    SSERequest,
    fast_loads,
    parse_json_text,
    post_sse,
)
from pitui.ai.providers._sse import ServerSentEvent
from pitui.ai.providers.anthropic_request import (
    DEFAULT_BASE_URL,
    build_body,
    build_headers,
    from_claude_code_name,
    is_oauth_token,
)
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

REDACTED_THINKING_TEXT = "[Reasoning redacted]"
_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "sensitive": "error",
}
# In-band error types worth a retry while nothing has reached the consumer yet.
_RETRYABLE_ERROR_TYPES = frozenset(
    {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
)

Block = TextContent | ThinkingContent | ToolCall
_Run = Callable[[AssistantMessage, int, list[str]], Iterator[AssistantMessageEvent]]
_TEXT_RUN: _Run = delta_run(TextDeltaEvent)
_THINKING_RUN: _Run = delta_run(ThinkingDeltaEvent)
_TOOLCALL_RUN: _Run = delta_run(ToolCallDeltaEvent)


def stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream one reply of an Anthropic Messages model. Never raises.

    The key is ``options.api_key``, else the provider's environment variable. A
    ``sk-ant-oat`` token is sent as Bearer auth with Claude Code identity (PI_SPEC §2.2).
    """
    output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
    api_key = options.api_key or env_api_key(model.provider)
    if not api_key:
        return error_stream(output, f"No API key for provider: {model.provider}")

    async def body(events: AssistantMessageEventStream, out: AssistantMessage) -> None:
        oauth = is_oauth_token(api_key)
        base_url = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
        request = SSERequest(
            url=f"{base_url}/v1/messages",
            headers=build_headers(model, context, api_key),
            body=build_body(model, context, options, oauth),
            secrets=(api_key,),
        )
        # Anthropic: ``start`` goes out before any network I/O (PI_SPEC §1.4).
        events.push(StartEvent(partial=out))
        reader = _StreamReader(model, context, out, events, oauth)
        try:
            await post_sse(request, options, reader.read, reader.content_started, reader.flush)
        finally:
            reader.settle()

    return run_stream(output, body, options.signal)


class _Open:
    """A block the server has started and not yet stopped, with its unsettled deltas.

    Deltas are collected in ``pending``, the pieces of the block's current run, and
    joined into the block by :meth:`settle`, which runs before every network read (when
    other tasks may look at the partial message) and before the block ends. A burst of
    deltas from one read thus costs one join and one argument parse instead of one per
    delta (quadratic for long blocks).
    """

    __slots__ = ("block", "delta_key", "delta_type", "json", "pending", "position", "run")

    def __init__(self, block: Block, position: int) -> None:
        self.block = block
        self.position = position
        self.pending: list[str] = []
        self.json = ""
        # What a content delta for this block looks like, and the events it becomes.
        self.run: _Run
        if isinstance(block, TextContent):
            self.delta_type, self.delta_key, self.run = "text_delta", "text", _TEXT_RUN
        elif isinstance(block, ThinkingContent):
            self.delta_type, self.delta_key, self.run = "thinking_delta", "thinking", _THINKING_RUN
        else:
            self.delta_type, self.delta_key = "input_json_delta", "partial_json"
            self.run = _TOOLCALL_RUN

    def settle(self, pieces: list[str]) -> None:
        """Apply one run's deltas to the block (the run still reads ``pieces``)."""
        joined = "".join(pieces)
        block = self.block
        if isinstance(block, ToolCall):
            # PI_SPEC §1.6: arguments are the lenient parse of all fragments so far.
            self.json += joined
            _set_extra(block, "partialJson", self.json)
            block.__dict__["arguments"] = _arguments(self.json)
        else:
            fields = block.__dict__
            fields[self.delta_key] += joined


class _StreamReader:
    """Turns one SSE response into events on the partial message."""

    def __init__(
        self,
        model: Model,
        context: Context,
        output: AssistantMessage,
        events: AssistantMessageEventStream,
        oauth: bool,
    ) -> None:
        self.model = model
        self.context = context
        self.out = output
        self.events = events
        self.oauth = oauth
        self.open: dict[int, _Open] = {}
        # Events wait here until the next flush, so one burst costs one push: single
        # events, and runs of one block's deltas (built as the consumer reads them).
        self.segments: list[Iterator[AssistantMessageEvent]] = []
        # The runs among them, in order, to join into their blocks at the flush.
        self.runs: list[tuple[_Open, list[str]]] = []
        # The block whose run is the last segment: its next delta joins that run.
        self.last: _Open | None = None
        self.stopped = False

    def content_started(self) -> bool:
        """True once a block event went out: from then on failures are not retried."""
        return bool(self.out.content)

    def flush(self) -> None:
        """Bring every block of the partial message up to date and send the events.

        Runs before every network read: the consumer sees the events of a burst only
        once the partial message they point at holds all of it.
        """
        for current, pieces in self.runs:
            current.settle(pieces)
        self.runs.clear()
        self.last = None  # the runs are handed over: a later delta starts a new one
        if self.segments:
            self.events.push_lazy(self.segments)
            self.segments.clear()

    def _emit(self, event: AssistantMessageEvent) -> None:
        self.segments.append(iter((event,)))
        self.last = None  # a later delta must come after this event

    def _begin_run(self, current: _Open) -> None:
        """Queue a new run of ``current``'s deltas; its pieces follow."""
        pieces: list[str] = []
        current.pending = pieces
        self.runs.append((current, pieces))
        self.segments.append(current.run(self.out, current.position, pieces))
        self.last = current

    def settle(self) -> None:
        """At the very end, success or not: flush, and drop the ``index`` scratch field."""
        self.flush()
        for block in self.out.content:
            _del_extra(block, "index")

    async def read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        """Consume one attempt's events; raise :class:`ProviderError` on failure."""
        try:
            await self._read(sse)
        finally:
            # Whatever this attempt queued goes out before a retry or the terminal event.
            self.flush()

    async def _read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        self.stopped = False
        self.open.clear()
        handlers, blocks, loads = self._handlers, self.open, fast_loads
        async for event in sse:
            # Dispatch on the event name as the SDK does: ping, unknown names (and their
            # payloads) are skipped without parsing.
            name = event.event
            if name == "content_block_delta":
                try:
                    data = loads(event.data)
                except ValueError:
                    data = parse_json_text(event.data)
                if type(data) is not dict:
                    continue
                # The hot path, one pass per delta: plain dict lookups, and the piece
                # queued on the block's run (flush pushes the burst).
                current = blocks.get(data.get("index", -1))
                delta = data.get("delta")
                if current is None or type(delta) is not dict:
                    continue
                if delta.get("type") != current.delta_type:
                    self._other_delta(current, delta)
                    continue
                piece = delta.get(current.delta_key)
                if type(piece) is not str:
                    piece = ""
                if current is not self.last:
                    self._begin_run(current)
                current.pending.append(piece)
                continue
            handler = handlers.get(name)
            if handler is None:
                continue
            try:
                data = loads(event.data)
            except ValueError:
                data = parse_json_text(event.data)
            if type(data) is dict:
                handler(self, data)
                if self.stopped:
                    return
        raise ProviderError(
            "Stream ended before message_stop (connection closed early)", retryable=True
        )

    # ------------------------------------------------------------------ message level

    def _message_start(self, data: dict[str, Any]) -> None:
        usage = (data.get("message") or {}).get("usage") or {}
        u = self.out.usage
        u.input = usage.get("input_tokens") or 0
        u.output = usage.get("output_tokens") or 0
        u.cache_read = usage.get("cache_read_input_tokens") or 0
        u.cache_write = usage.get("cache_creation_input_tokens") or 0
        self._total(u)

    def _message_delta(self, data: dict[str, Any]) -> None:
        self._close_open_blocks()
        reason = (data.get("delta") or {}).get("stop_reason")
        if reason:
            mapped = _STOP_REASONS.get(reason)
            if mapped is None:
                raise ProviderError(f"Unhandled stop reason: {reason}")
            self.out.stop_reason = mapped
        usage = data.get("usage") or {}
        u = self.out.usage
        # Only reported fields overwrite: proxies may omit input_tokens here.
        if usage.get("input_tokens") is not None:
            u.input = usage["input_tokens"]
        if usage.get("output_tokens") is not None:
            u.output = usage["output_tokens"]
        if usage.get("cache_read_input_tokens") is not None:
            u.cache_read = usage["cache_read_input_tokens"]
        if usage.get("cache_creation_input_tokens") is not None:
            u.cache_write = usage["cache_creation_input_tokens"]
        self._total(u)

    def _message_stop(self, data: dict[str, Any]) -> None:
        self._close_open_blocks()
        self.stopped = True

    def _error(self, data: dict[str, Any]) -> None:
        raw = data.get("error")
        error: dict[str, Any] = raw if isinstance(raw, dict) else {}
        etype = str(error.get("type") or "error")
        message = str(error.get("message") or json.dumps(data))
        raise ProviderError(f"{etype}: {message}", retryable=etype in _RETRYABLE_ERROR_TYPES)

    def _total(self, u: Usage) -> None:
        u.total_tokens = u.input + u.output + u.cache_read + u.cache_write
        calculate_cost(self.model, u)

    # ------------------------------------------------------------------ blocks

    def _block_start(self, data: dict[str, Any]) -> None:
        raw = data.get("content_block") or {}
        kind = raw.get("type")
        block: Block
        if kind == "text":
            block = TextContent(text="")
        elif kind == "thinking":
            block = ThinkingContent(thinking="", thinking_signature="")
        elif kind == "redacted_thinking":
            block = ThinkingContent(
                thinking=REDACTED_THINKING_TEXT, thinking_signature=raw.get("data"), redacted=True
            )
        elif kind == "tool_use":
            name = str(raw.get("name") or "")
            if self.oauth:
                name = from_claude_code_name(name, self.context.tools)
            args = raw.get("input")
            block = ToolCall(
                id=str(raw.get("id") or ""),
                name=name,
                arguments=args if isinstance(args, dict) else {},
            )
            _set_extra(block, "partialJson", "")
        else:
            return  # server tools and future block types are not pi content
        index = data.get("index")
        position = len(self.out.content)
        _set_extra(block, "index", index)
        self.out.content.append(block)
        self.open[index if isinstance(index, int) else -1] = _Open(block, position)
        start: TextStartEvent | ThinkingStartEvent | ToolCallStartEvent
        if kind == "text":
            start = fast_event(TextStartEvent, content_index=position, partial=self.out)
        elif kind == "tool_use":
            start = fast_event(ToolCallStartEvent, content_index=position, partial=self.out)
        else:
            start = fast_event(ThinkingStartEvent, content_index=position, partial=self.out)
        self._emit(start)

    def _other_delta(self, current: _Open, delta: dict[str, Any]) -> None:
        """A delta that is not the block's content delta (those :meth:`read` handles)."""
        if delta.get("type") == "signature_delta" and isinstance(current.block, ThinkingContent):
            # Signatures mutate the block silently (PI_SPEC §1.4.5).
            block = current.block
            signature = (block.thinking_signature or "") + str(delta.get("signature") or "")
            block.__dict__["thinking_signature"] = signature
        # citations_delta and future delta types carry nothing pi keeps.

    def _block_stop(self, data: dict[str, Any]) -> None:
        current = self.open.pop(data.get("index", -1), None)
        if current is not None:
            self._end(current)

    def _close_open_blocks(self) -> None:
        # ``max_tokens`` can cut a block off with no content_block_stop.
        for key in sorted(self.open, key=lambda k: self.open[k].position):
            self._end(self.open.pop(key))

    def _end(self, current: _Open) -> None:
        self.flush()
        block = current.block
        _del_extra(block, "index")
        position = current.position
        out = self.out
        event: TextEndEvent | ThinkingEndEvent | ToolCallEndEvent
        if isinstance(block, TextContent):
            event = fast_event(
                TextEndEvent, content_index=position, content=block.text, partial=out
            )
        elif isinstance(block, ThinkingContent):
            event = fast_event(
                ThinkingEndEvent, content_index=position, content=block.thinking, partial=out
            )
        else:
            _del_extra(block, "partialJson")
            if isinstance(block, ToolCall) and current.json:  # else: the start's ``input``
                block.set_final_arguments(*parse_final_json(current.json))
            event = fast_event(
                ToolCallEndEvent, content_index=position, tool_call=block, partial=out
            )
        self._emit(event)

    _handlers: ClassVar[dict[str, Callable[[_StreamReader, dict[str, Any]], None]]] = {
        "message_start": _message_start,
        "message_delta": _message_delta,
        "message_stop": _message_stop,
        "content_block_start": _block_start,
        "content_block_stop": _block_stop,
        "error": _error,
    }


def _arguments(raw: str) -> dict[str, Any]:
    parsed = parse_streaming_json(raw)
    return parsed if isinstance(parsed, dict) else {}


def _set_extra(block: Block, key: str, value: Any) -> None:
    # pi keeps scratch fields (``index``, ``partialJson``) on blocks while streaming.
    extra = block.__pydantic_extra__
    if extra is not None:
        extra[key] = value


def _del_extra(block: Block, key: str) -> None:
    extra = block.__pydantic_extra__
    if extra is not None:
        extra.pop(key, None)
