"""Running the tool calls of one assistant message (PI_SPEC §3.5b/c/e, §3.7, §3.8).

Calls are prepared one by one in source order (``tool_execution_start``, lookup,
validation, ``before_tool_call``); a call that fails preparation is resolved at once.
Consecutive parallel-safe calls then execute concurrently and their results are emitted
in source order; a call of a ``sequential`` tool runs alone. Every call gets exactly one
result, whatever happens: failures, aborts, steering and truncated replies included.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable
from typing import TypeVar

import msgspec
from pydantic import BaseModel

from pitui.agent.config import AfterToolCallContext, AgentContext, AgentEventSink, AgentLoopConfig
from pitui.agent.events import (
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pitui.agent.messages import AgentMessage
from pitui.agent.tool import AgentTool, AgentToolResult
from pitui.agent.validation import ToolArgumentsError, validate_tool_arguments
from pitui.ai.abort import AbortSignal
from pitui.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage

SKIPPED_TEXT = "Skipped due to queued user message."
BLOCKED_TEXT = "Tool execution was blocked"
ABORTED_TEXT = "Operation aborted"
TRUNCATED_TEXT = (
    'Tool call "{name}" was not run: the response was cut off by the output token limit '
    '(stopReason "length"), so its arguments may be incomplete. Retry the call; split large '
    "content over several smaller calls if needed."
)

INCOMPLETE_TEXT = (
    "The {name} call was not run: {problem} (the stream ended before they were complete). "
    "Nothing was executed; send the call again with complete arguments."
)
"""Deliberate difference from pi, which runs a lenient reading of broken arguments."""

_T = TypeVar("_T")


class ToolBatch(msgspec.Struct):
    """The outcome of one message's tool calls."""

    results: list[ToolResultMessage]
    steering: list[AgentMessage] | None = None
    """Steering messages polled during execution (the caller delivers them next)."""


class _Prepared(msgspec.Struct):
    call: ToolCall
    tool: AgentTool
    args: BaseModel


def error_result(text: str) -> AgentToolResult:
    """A tool result carrying one error text, ``details`` empty (pi's ``createErrorToolResult``)."""
    return AgentToolResult(content=[TextContent(text=text)], details={})


async def maybe_await(value: Awaitable[_T] | _T) -> _T:
    """``await`` ``value`` if it is awaitable (hooks may be sync or async)."""
    if inspect.isawaitable(value):
        return await value
    return value


class ToolRunner:
    """Executes the tool calls of ``assistant`` and emits their events."""

    def __init__(
        self,
        context: AgentContext,
        assistant: AssistantMessage,
        config: AgentLoopConfig,
        signal: AbortSignal,
        emit: AgentEventSink,
    ) -> None:
        self._context = context
        self._assistant = assistant
        self._config = config
        self._signal = signal
        self._emit = emit
        self._results: list[ToolResultMessage] = []

    async def run(self) -> ToolBatch:
        """Run every tool call of the message; return the results in emission order."""
        calls = self._assistant.tool_calls()
        if self._assistant.stop_reason == "length":
            # Deliberate difference from pi (PI_SPEC §3.5e): never run half-written calls.
            for call in calls:
                await self._emit_start(call)
                await self._finish(call, error_result(TRUNCATED_TEXT.format(name=call.name)), True)
            return ToolBatch(self._results)
        done = 0
        for segment in self._segments(calls):
            rest = calls[done + len(segment) :]
            if len(segment) == 1 and self._is_sequential(segment[0]):
                steering = await self._run_sequential(segment[0], rest)
            else:
                steering = await self._run_parallel(segment, rest)
            if steering:
                return ToolBatch(self._results, steering)
            done += len(segment)
        return ToolBatch(self._results)

    # ------------------------------------------------------------------ grouping

    def _find(self, name: str) -> AgentTool | None:
        return next((t for t in self._context.tools if t.name == name), None)

    def _is_sequential(self, call: ToolCall) -> bool:
        if self._config.tool_execution == "sequential":
            return True
        tool = self._find(call.name)
        return tool is not None and tool.execution_mode == "sequential"

    def _segments(self, calls: list[ToolCall]) -> list[list[ToolCall]]:
        """Runs of parallel-safe calls, and each sequential call on its own."""
        segments: list[list[ToolCall]] = []
        for call in calls:
            if self._is_sequential(call):
                segments.append([call])
            elif segments and not self._is_sequential(segments[-1][0]):
                segments[-1].append(call)
            else:
                segments.append([call])
        return segments

    # ------------------------------------------------------------------ modes

    async def _run_sequential(self, call: ToolCall, rest: list[ToolCall]) -> list[AgentMessage]:
        await self._emit_start(call)
        prepared = await self._prepare(call)
        if isinstance(prepared, _Prepared):
            result, is_error = await self._execute(prepared)
            await self._finalize(prepared, result, is_error)
        steering = await self._poll_steering()
        if steering:
            for skipped in rest:
                await self._skip(skipped, emit_start=True)
        return steering

    async def _run_parallel(
        self, segment: list[ToolCall], rest: list[ToolCall]
    ) -> list[AgentMessage]:
        runnable: list[_Prepared] = []
        for index, call in enumerate(segment):
            await self._emit_start(call)
            prepared = await self._prepare(call)
            if isinstance(prepared, _Prepared):
                runnable.append(prepared)
            steering = await self._poll_steering()
            if steering:
                for ready in runnable:
                    await self._skip(ready.call, emit_start=False)
                for skipped in [*segment[index + 1 :], *rest]:
                    await self._skip(skipped, emit_start=True)
                return steering
        tasks = [asyncio.ensure_future(self._execute(p)) for p in runnable]
        try:
            for prepared, task in zip(runnable, tasks, strict=True):
                result, is_error = await task
                await self._finalize(prepared, result, is_error)
        finally:
            for task in tasks:
                task.cancel()
        steering = await self._poll_steering()
        if steering:
            for skipped in rest:
                await self._skip(skipped, emit_start=True)
        return steering

    async def _poll_steering(self) -> list[AgentMessage]:
        poll = self._config.get_steering_messages
        return (await poll()) if poll is not None else []

    # ------------------------------------------------------------------ one call

    async def _prepare(self, call: ToolCall) -> _Prepared | None:
        """Look up and validate ``call``; resolve it at once (returning None) if it fails."""
        tool = self._find(call.name)
        if tool is None:
            await self._finish(call, error_result(f"Tool {call.name} not found"), True)
            return None
        if call.arguments_problem is not None:
            text = INCOMPLETE_TEXT.format(name=call.name, problem=call.arguments_problem)
            await self._finish(call, error_result(text), True)
            return None
        try:
            args = validate_tool_arguments(tool, call)
            reason = await self._before(call, args)
        except ToolArgumentsError as exc:
            reason = str(exc)
        except Exception as exc:  # a failing hook fails the call, not the run
            reason = _describe(exc)
        if reason is not None:
            await self._finish(call, error_result(reason or BLOCKED_TEXT), True)
            return None
        return _Prepared(call, tool, args)

    async def _before(self, call: ToolCall, args: BaseModel) -> str | None:
        hook = self._config.before_tool_call
        if hook is None:
            return None
        pending = hook(call, args)
        if not inspect.isawaitable(pending):
            return pending
        decision = asyncio.ensure_future(pending)
        aborted = asyncio.ensure_future(self._signal.wait())
        try:
            await asyncio.wait({decision, aborted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            aborted.cancel()
            if not decision.done():
                decision.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await decision
        if decision.cancelled():
            return ABORTED_TEXT
        result: str | None = decision.result()
        return result

    async def _execute(self, prepared: _Prepared) -> tuple[AgentToolResult, bool]:
        call = prepared.call
        updates: list[asyncio.Future[None]] = []
        open_ = True

        def on_update(partial: AgentToolResult) -> None:
            if open_:  # updates after the result would arrive after tool_execution_end
                if self._config.filter_tool_result is not None:
                    partial = self._config.filter_tool_result(partial)
                event = ToolExecutionUpdateEvent(
                    tool_call_id=call.id, tool_name=call.name, args=call.arguments,
                    partial_result=partial,
                )  # fmt: skip
                updates.append(asyncio.ensure_future(self._emit(event)))

        try:
            result = await prepared.tool.execute(call.id, prepared.args, self._signal, on_update)
            outcome = (result, False)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # we are being cancelled, not the tool
            outcome = (error_result(ABORTED_TEXT), True)
        except Exception as exc:  # the model reads the failure as the tool's result
            outcome = (error_result(_describe(exc)), True)
        finally:
            open_ = False
            if updates:
                await asyncio.gather(*updates)
        if self._config.filter_tool_result is not None:
            outcome = (self._config.filter_tool_result(outcome[0]), outcome[1])
        return outcome

    async def _finalize(self, prepared: _Prepared, result: AgentToolResult, is_error: bool) -> None:
        hook = self._config.after_tool_call
        content, details = result.content, result.details
        if hook is not None:
            ctx = AfterToolCallContext(
                self._assistant, prepared.call, prepared.args, content, details, is_error
            )
            override = await maybe_await(hook(ctx))
            if override is not None:
                content = override.content if override.content is not None else content
                details = override.details if override.details is not None else details
                is_error = override.is_error if override.is_error is not None else is_error
        await self._finish(
            prepared.call, AgentToolResult(content=content, details=details), is_error
        )

    async def _skip(self, call: ToolCall, *, emit_start: bool) -> None:
        if emit_start:
            await self._emit_start(call)
        await self._finish(call, error_result(SKIPPED_TEXT), True)

    async def _emit_start(self, call: ToolCall) -> None:
        await self._emit(
            ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
        )

    async def _finish(self, call: ToolCall, result: AgentToolResult, is_error: bool) -> None:
        """Emit ``tool_execution_end`` and the result message (pi's ``emitToolCallOutcome``)."""
        await self._emit(
            ToolExecutionEndEvent(
                tool_call_id=call.id, tool_name=call.name, result=result, is_error=is_error
            )
        )
        message = ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=result.content,
            details=result.details,
            is_error=is_error,
        )
        await self._emit(MessageStartEvent(message=message))
        await self._emit(MessageEndEvent(message=message))
        self._results.append(message)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return text if text.strip() else type(exc).__name__
