"""Shared helpers for provider adapter tests: run a stream, check its events, compare bodies.

Every adapter test does the same three things: drive ``stream(model, context, options)``
against the loopback replay server and collect what comes out, assert the PI_SPEC §1.4
ordering guarantees on the events, and compare the request body the adapter sent to a
recorded ``.request.json`` in *protocol structure* (roles, blocks, tools, params) while
ignoring the keys in which pi legitimately differs from the recording client.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pitui.ai.event_stream import AssistantMessageEventStream
from pitui.ai.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ToolCallDeltaEvent,
)
from pitui.ai.options import StreamOptions
from pitui.ai.types import AssistantMessage, Context, Model
from tests.replay_server import ReplayServer, Reply

PROVIDER_FIXTURES = Path(__file__).parents[2] / "fixtures" / "providers"
PI_CLI_FIXTURES = Path(__file__).parents[2] / "fixtures" / "pi-cli"

_KIND = {
    "text_start": ("text", "start"),
    "text_delta": ("text", "delta"),
    "text_end": ("text", "end"),
    "thinking_start": ("thinking", "start"),
    "thinking_delta": ("thinking", "delta"),
    "thinking_end": ("thinking", "end"),
    "toolcall_start": ("toolcall", "start"),
    "toolcall_delta": ("toolcall", "delta"),
    "toolcall_end": ("toolcall", "end"),
}


@dataclass
class StreamRun:
    """Everything one stream produced."""

    events: list[AssistantMessageEvent]
    message: AssistantMessage
    deltas: dict[int, list[str]] = field(default_factory=dict)
    """Per content index, the ``delta`` strings in arrival order."""

    @property
    def types(self) -> list[str]:
        """The event types in order."""
        return [e.type for e in self.events]

    def terminal(self) -> DoneEvent | ErrorEvent:
        """The last event, which must be terminal."""
        last = self.events[-1]
        assert isinstance(last, DoneEvent | ErrorEvent), f"last event is {last.type}"
        return last


async def collect(stream: AssistantMessageEventStream, *, timeout_s: float = 10.0) -> StreamRun:
    """Consume ``stream`` to its end; return the events and the final message."""
    events: list[AssistantMessageEvent] = []
    deltas: dict[int, list[str]] = {}

    async def consume() -> None:
        async for event in stream:
            events.append(event)
            if isinstance(event, TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent):
                deltas.setdefault(event.content_index, []).append(event.delta)

    await asyncio.wait_for(consume(), timeout_s)
    message = await asyncio.wait_for(stream.result(), timeout_s)
    return StreamRun(events=events, message=message, deltas=deltas)


StreamFn = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]


async def run_replay(
    server: ReplayServer,
    stream_fn: StreamFn,
    model: Model,
    context: Context,
    options: StreamOptions,
    *replies: Reply,
    timeout_s: float = 10.0,
) -> StreamRun:
    """Queue ``replies`` on ``server``, stream ``model`` (re-pointed at it) and collect.

    The model's ``base_url`` is replaced by the server's URL (keeping any path suffix
    given as ``model.base_url`` when it starts with ``/``, e.g. ``/v1``).
    """
    server.add(*replies)
    suffix = model.base_url if model.base_url.startswith("/") else ""
    local = model.model_copy(update={"base_url": server.url + suffix})
    return await collect(stream_fn(local, context, options), timeout_s=timeout_s)


def assert_event_order(
    run: StreamRun,
    *,
    require_closed_on_done: bool = True,
    deltas_concat_to_end: bool = True,
) -> None:
    """Assert the PI_SPEC §1.4 guarantees on one stream's events.

    1. at most one ``start``, before any block event (a lone terminal is allowed);
    2. per block ``*_start`` → ``*_delta``* → ``*_end`` of one kind with one contentIndex,
       start indices dense 0, 1, 2 … and equal to the block's position in the message;
    3. exactly one terminal event, last, whose message is the result.

    Args:
        run: the collected stream.
        require_closed_on_done: on ``done`` every started block must have ended.
        deltas_concat_to_end: text/thinking deltas of a block concatenate to (the tail of)
            its ``*_end`` content (false for the Responses thinking quirk, PI_SPEC §1.4.6).
    """
    events = run.events
    assert events, "stream produced no events"
    terminals = [i for i, e in enumerate(events) if isinstance(e, DoneEvent | ErrorEvent)]
    assert terminals == [len(events) - 1], f"terminal events at {terminals} of {len(events)}"
    starts = [i for i, e in enumerate(events) if isinstance(e, StartEvent)]
    assert len(starts) <= 1, "more than one start event"
    if not starts:
        assert len(events) == 1, "block events without a start event"
    else:
        assert starts[0] == 0, "start is not the first event"
    open_kind: dict[int, str] = {}
    closed: set[int] = set()
    started = 0
    for event in events[1:-1]:
        kind, phase = _KIND[event.type]
        index: int = getattr(event, "content_index")  # noqa: B009 - union without the attr
        if phase == "start":
            assert index == started, f"{event.type} index {index}, expected {started}"
            open_kind[index] = kind
            started += 1
            continue
        assert index in open_kind, f"{event.type} for block {index} that is not open"
        assert open_kind[index] == kind, f"{event.type} on a {open_kind[index]} block"
        if phase == "end":
            del open_kind[index]
            closed.add(index)
            _check_end(run, event, index, deltas_concat_to_end)
    final = run.terminal()
    message = final.message if isinstance(final, DoneEvent) else final.error
    assert message is run.message, "terminal message is not the stream result"
    assert len(message.content) == started, "content blocks without a start event"
    if isinstance(final, DoneEvent):
        assert message.stop_reason == final.reason
        if require_closed_on_done:
            assert not open_kind, f"blocks {sorted(open_kind)} never ended"
    else:
        assert message.stop_reason == final.reason
        assert message.error_message, "error without errorMessage"


def _check_end(
    run: StreamRun, event: AssistantMessageEvent, index: int, deltas_concat_to_end: bool
) -> None:
    if not deltas_concat_to_end or not isinstance(event, TextEndEvent | ThinkingEndEvent):
        return
    joined = "".join(run.deltas.get(index, []))
    # A block may start with text (Anthropic redacted thinking: "[Reasoning redacted]").
    assert event.content.endswith(joined), f"block {index}: deltas do not add up to its end"


# --------------------------------------------------------------------------- request bodies


def load_json(path: Path | str) -> Any:
    """A JSON fixture: an absolute path, or a name under ``fixtures/providers``."""
    full = Path(path) if Path(path).is_absolute() else PROVIDER_FIXTURES / path
    return json.loads(full.read_text())


def load_jsonl(path: Path) -> list[Any]:
    """Every line of a JSONL fixture, parsed."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


Canon = Callable[[str, Any], Any]


def text_content_canon(key: str, value: Any) -> Any:
    """Treat ``"content": "x"`` as ``[{"type": "text", "text": "x"}]`` (both are valid)."""
    if key == "content" and isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


def protocol_structure(
    body: Any, ignore: Iterable[str] = (), canon: Canon | None = text_content_canon
) -> Any:
    """``body`` with the ``ignore`` keys removed at every depth and values canonicalised."""
    ignored = frozenset(ignore)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key in ignored:
                    continue
                if canon is not None:
                    item = canon(key, item)
                out[key] = walk(item)
            return out
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    return walk(body)


def assert_same_protocol(
    actual: Any,
    expected: Any,
    *,
    ignore: Iterable[str] = (),
    canon: Canon | None = text_content_canon,
) -> None:
    """Assert two request bodies agree once ``ignore`` keys are dropped and values canonical.

    Args:
        actual: the body the adapter sent.
        expected: the recorded ``.request.json`` (or a pi-cli request body).
        ignore: keys in which the recording client legitimately differs from pi
            (``cache_control``, ``tool_choice`` …), dropped at every depth on both sides.
        canon: per-key value canonicaliser applied on both sides.
    """
    left = protocol_structure(actual, ignore, canon)
    right = protocol_structure(expected, ignore, canon)
    if left != right:
        dumped_left = json.dumps(left, indent=1, sort_keys=True)
        dumped_right = json.dumps(right, indent=1, sort_keys=True)
        raise AssertionError(
            f"request bodies differ\n--- sent\n{dumped_left}\n--- expected\n{dumped_right}"
        )


def key_paths(body: Any, key: str, prefix: str = "") -> list[str]:
    """Dotted paths of every occurrence of ``key`` in ``body`` (for placement checks)."""
    found: list[str] = []
    if isinstance(body, dict):
        for name, item in body.items():
            path = f"{prefix}.{name}" if prefix else name
            if name == key:
                found.append(path)
            found.extend(key_paths(item, key, path))
    elif isinstance(body, list):
        for i, item in enumerate(body):
            found.extend(key_paths(item, key, f"{prefix}[{i}]"))
    return found
