"""What one run of the agent loop is given: its context, its configuration and its hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeAlias

import msgspec
from pydantic import BaseModel

from pitui.agent.events import AgentEvent
from pitui.agent.messages import AgentMessage, default_convert_to_llm
from pitui.agent.tool import AgentTool, AgentToolResult, ExecutionMode
from pitui.ai.abort import AbortSignal
from pitui.ai.options import StreamOptions
from pitui.ai.stream import StreamFn, stream
from pitui.ai.types import (
    AssistantMessage,
    Message,
    Model,
    ThinkingLevel,
    ToolCall,
    ToolResultContent,
)

QueueMode: TypeAlias = Literal["one-at-a-time", "all"]

AgentEventSink: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
"""Receives every event of a run; the loop awaits it before going on."""

TransformContext: TypeAlias = Callable[
    [list[AgentMessage], AbortSignal | None],
    list[AgentMessage] | Awaitable[list[AgentMessage]],
]
"""AgentMessage[] → AgentMessage[] before every model call (compaction view, pruning)."""

ConvertToLlm: TypeAlias = Callable[[list[AgentMessage]], list[Message] | Awaitable[list[Message]]]
"""AgentMessage[] → Message[]: what the model sees of the transcript."""

GetApiKey: TypeAlias = Callable[[str], str | Awaitable[str | None] | None]
"""Resolves the API key of a provider per call (tokens may expire during long tool runs)."""

MessageSource: TypeAlias = Callable[[], Awaitable[list[AgentMessage]]]
"""A steering or follow-up poll: the queued messages to deliver now (often none)."""

BeforeToolCall: TypeAlias = Callable[[ToolCall, BaseModel], str | Awaitable[str | None] | None]
"""Called after validation, before execution. Return a reason to block the call, else None.

An empty reason blocks with ``Tool execution was blocked``. The hook may await (a user's
approval); if the run is aborted meanwhile, the hook is cancelled and the call fails with
``Operation aborted``.
"""


class AfterToolCallContext(msgspec.Struct):
    """What ``after_tool_call`` sees of a finished call."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: BaseModel
    content: list[ToolResultContent]
    details: Any
    is_error: bool


class AfterToolCallResult(msgspec.Struct):
    """Field-by-field overrides of a tool result; ``None`` keeps the original value."""

    content: list[ToolResultContent] | None = None
    details: Any = None
    is_error: bool | None = None


AfterToolCall: TypeAlias = Callable[
    [AfterToolCallContext], AfterToolCallResult | Awaitable[AfterToolCallResult | None] | None
]


ToolResultFilter: TypeAlias = Callable[[AgentToolResult], AgentToolResult]
"""Rewrites every tool result, streamed or final, before anyone sees it (redaction)."""


class AgentContext(msgspec.Struct):
    """The conversation a run works on. The loop appends to its own copy of ``messages``."""

    system_prompt: str = ""
    messages: list[AgentMessage] = msgspec.field(default_factory=list)
    tools: list[AgentTool] = msgspec.field(default_factory=list)


class AgentLoopConfig(msgspec.Struct):
    """Everything the loop needs besides the context (pi's ``AgentLoopConfig``)."""

    model: Model
    stream_fn: StreamFn = stream
    """Makes one model call; injected by tests and benchmarks (scripted streams)."""
    convert_to_llm: ConvertToLlm = default_convert_to_llm
    transform_context: TransformContext | None = None
    get_api_key: GetApiKey | None = None
    stream_options: StreamOptions = msgspec.field(default_factory=StreamOptions)
    """Template of every call's options; key, signal, reasoning and session id are set per call."""
    reasoning: ThinkingLevel = "off"
    session_id: str | None = None
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    tool_execution: ExecutionMode = "parallel"
    """``sequential`` runs every call alone; ``parallel`` lets parallel-safe tools overlap."""
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    filter_tool_result: ToolResultFilter | None = None
    """Applied to each ``tool_execution_update`` partial and each executed tool's result,
    before events, hooks, the transcript and the model see them."""
    get_tools: Callable[[], list[AgentTool]] | None = None
    """The tools as they are now, read before every model call of the run: a tool may
    change them mid-run (``tool_search`` declares what it found for the next call)."""
