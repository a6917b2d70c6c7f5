"""Scripted stream functions and small tools for testing the agent loop without a network."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel

from pitui.agent.events import AgentEvent
from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback
from pitui.ai.abort import AbortSignal
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
from pitui.ai.transform import transform_messages
from pitui.ai.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

MODEL = Model(id="scripted-1", name="Scripted", api="scripted", provider="test")


@dataclass
class Text:
    text: str


@dataclass
class Thinking:
    text: str


@dataclass
class Call:
    id: str
    name: str
    args: dict[str, Any]
    complete: bool = True
    """False: the block is cut off mid-arguments (no toolcall_end), as a length stop does."""


Block: TypeAlias = Text | Thinking | Call
Stop: TypeAlias = Literal["auto", "stop", "length", "toolUse", "error"]


@dataclass
class Reply:
    blocks: Sequence[Block] = field(default_factory=list)
    stop: Stop = "auto"
    fail_before_start: bool = False
    pause_after_start: float = 0.0
    """Seconds to wait after ``start`` (so a test can abort mid-stream)."""
    hang: bool = False
    """Wait (for an abort) after the last block instead of finishing."""


def text_reply(text: str = "done") -> Reply:
    return Reply([Text(text)])


def chunks(text: str) -> list[str]:
    """Two deltas for a text, so every block has more than one update."""
    half = max(1, len(text) // 2)
    return [text[:half], text[half:]] if len(text) > 1 else [text]


class ScriptedModel:
    """A stream function that plays ``replies`` in order, then answers ``done``.

    Every call is recorded (the Context's messages as they went to the model, and options).
    ``on_call`` runs first, for checks that must see each request as it is made.
    """

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [])
        self.contexts: list[Context] = []
        self.options: list[StreamOptions] = []
        self.on_call: Callable[[Context], None] | None = None

    def __call__(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        if self.on_call is not None:
            self.on_call(context)
        self.contexts.append(context)
        self.options.append(options)
        reply = self.replies.pop(0) if self.replies else text_reply()
        output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)

        async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
            if options.signal is not None and options.signal.aborted:
                return  # like a provider checking before any I/O: an empty aborted reply
            await play(reply, stream, out)

        return run_stream(output, body, options.signal)


async def play(reply: Reply, stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
    """Push the events of ``reply``, yielding to the loop between events."""
    if reply.fail_before_start:
        raise RuntimeError("connection refused")
    stream.push(StartEvent(partial=out))
    await asyncio.sleep(reply.pause_after_start)
    for block in reply.blocks:
        if isinstance(block, Call):
            if not await _play_call(block, stream, out):
                break
        else:
            await _play_text(block, stream, out)
    if reply.hang:
        await asyncio.sleep(3600)
    if reply.stop == "error":
        raise RuntimeError("scripted provider failure")
    has_calls = any(isinstance(b, Call) for b in reply.blocks)
    out.stop_reason = ("toolUse" if has_calls else "stop") if reply.stop == "auto" else reply.stop


async def _play_text(
    block: Text | Thinking, stream: AssistantMessageEventStream, out: AssistantMessage
) -> None:
    index = len(out.content)
    thinking = isinstance(block, Thinking)
    part: TextContent | ThinkingContent = (
        ThinkingContent(thinking="") if thinking else TextContent(text="")
    )
    out.content.append(part)
    start = ThinkingStartEvent if thinking else TextStartEvent
    stream.push(start(content_index=index, partial=out))
    await asyncio.sleep(0)
    for delta in chunks(block.text):
        if isinstance(part, ThinkingContent):
            part.thinking += delta
            stream.push(ThinkingDeltaEvent(content_index=index, delta=delta, partial=out))
        else:
            part.text += delta
            stream.push(TextDeltaEvent(content_index=index, delta=delta, partial=out))
        await asyncio.sleep(0)
    if thinking:
        stream.push(ThinkingEndEvent(content_index=index, content=block.text, partial=out))
    else:
        stream.push(TextEndEvent(content_index=index, content=block.text, partial=out))
    await asyncio.sleep(0)


async def _play_call(
    block: Call, stream: AssistantMessageEventStream, out: AssistantMessage
) -> bool:
    index = len(out.content)
    call = ToolCall(id=block.id, name=block.name, arguments={})
    out.content.append(call)
    stream.push(ToolCallStartEvent(content_index=index, partial=out))
    await asyncio.sleep(0)
    raw = json.dumps(block.args)
    stream.push(ToolCallDeltaEvent(content_index=index, delta=raw[: len(raw) // 2], partial=out))
    await asyncio.sleep(0)
    if not block.complete:
        # What a partial-JSON parser recovers from half the text: here, nothing.
        return False
    stream.push(ToolCallDeltaEvent(content_index=index, delta=raw[len(raw) // 2 :], partial=out))
    call.arguments = dict(block.args)
    stream.push(ToolCallEndEvent(content_index=index, tool_call=call, partial=out))
    await asyncio.sleep(0)
    return True


# --------------------------------------------------------------------------- tools


class WorkParams(BaseModel):
    mode: str
    n: int = 1


class WorkTool(AgentTool):
    """Behaves as ``mode`` says: ok, raise, tool_error, slow, update."""

    name = "work"
    label = "Work"
    description = "Does scripted work."
    parameters = WorkParams

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.saw_abort: list[str] = []

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        assert isinstance(params, WorkParams)
        self.calls.append(tool_call_id)
        if params.mode == "raise":
            raise RuntimeError(f"work failed for {tool_call_id}")
        if params.mode == "tool_error":
            raise ToolError(f"Tool error text {tool_call_id}")
        if params.mode == "update":
            on_update(AgentToolResult(content=[TextContent(text="half")]))
        if params.mode == "slow":
            for _ in range(5):
                await asyncio.sleep(0)
                if cancel.aborted:
                    self.saw_abort.append(tool_call_id)
                    raise ToolError("Operation aborted")
        return AgentToolResult(content=[TextContent(text=f"ok {tool_call_id} x{params.n}")])


class SeqTool(WorkTool):
    name = "seq"
    label = "Seq"
    execution_mode = "sequential"


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def describe(event: AgentEvent) -> str:
    """A compact name for an event, for order assertions."""
    match event.type:
        case "message_start" | "message_end":
            msg = event.message
            if isinstance(msg, ToolResultMessage):
                return f"{event.type}:toolResult:{msg.tool_call_id}"
            return f"{event.type}:{msg.role}"
        case "message_update":
            return f"message_update:{event.assistant_message_event.type}"
        case "tool_execution_start" | "tool_execution_update" | "tool_execution_end":
            return f"{event.type}:{event.tool_call_id}"
        case _:
            return event.type


# --------------------------------------------------------------------------- pairing


def pairing_errors(messages: list[Message], *, skip_failed: bool) -> list[str]:
    """Every toolCall has exactly one toolResult after it, before the next assistant/user.

    With ``skip_failed``, errored/aborted assistant messages must have no results at all
    (their calls are never run) and are otherwise ignored, as the replay transform drops them.
    """
    problems: list[str] = []
    open_ids: dict[str, int] = {}
    for position, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            if message.tool_call_id not in open_ids:
                problems.append(f"#{position}: result {message.tool_call_id} without open call")
            else:
                open_ids[message.tool_call_id] += 1
            continue
        problems += [f"#{position}: {i} has {n} results" for i, n in open_ids.items() if n != 1]
        open_ids = {}
        if isinstance(message, AssistantMessage):
            if skip_failed and message.stop_reason in ("error", "aborted"):
                continue
            open_ids = {call.id: 0 for call in message.tool_calls()}
    problems += [f"end: {i} has {n} results" for i, n in open_ids.items() if n != 1]
    return problems


def replay_transform(messages: list[Message], model: Model) -> list[Message]:
    """PI_SPEC 2.1 as every provider applies it before the wire."""
    return transform_messages(messages, model)
