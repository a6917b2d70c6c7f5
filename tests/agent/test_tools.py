"""Tool execution (PI_SPEC §3.8): failures, unknown tools, invalid arguments and the hooks."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from pitui.agent.config import AfterToolCallContext, AfterToolCallResult
from pitui.agent.events import (
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback
from pitui.agent.tool_exec import ABORTED_TEXT, BLOCKED_TEXT
from pitui.ai.abort import AbortSignal
from pitui.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from tests.agent.conftest import Harness, HarnessFactory
from tests.agent.scripted import Call, Reply, Text, WorkParams


def _results(h: Harness) -> list[ToolResultMessage]:
    return [m for m in h.agent.state.messages if isinstance(m, ToolResultMessage)]


def _texts_of(result: AgentToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, TextContent)]


def _texts(result: ToolResultMessage) -> list[str]:
    return [c.text for c in result.content if isinstance(c, TextContent)]


async def _run_one(h: Harness) -> ToolResultMessage:
    await h.agent.prompt("go")
    (result,) = _results(h)
    # The model's next request ends with this result: the loop went on after it.
    assert h.model.contexts[1].messages[-1] == result
    return result


async def test_tool_exception_becomes_error_result(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "raise"})]), Reply([Text("ok")])])
    result = await _run_one(h)
    assert result.is_error and _texts(result) == ["work failed for A"]
    assert result.details == {}


async def test_tool_error_message_is_verbatim(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "tool_error"})]), Reply([Text("ok")])])
    result = await _run_one(h)
    assert result.is_error and _texts(result) == ["Tool error text A"]


async def test_unknown_tool(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "nope", {"x": 1})]), Reply([Text("ok")])])
    result = await _run_one(h)
    assert result.is_error and _texts(result) == ["Tool nope not found"]
    assert result.tool_name == "nope"


async def test_invalid_arguments(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"n": "many"})]), Reply([Text("ok")])])
    result = await _run_one(h)
    assert result.is_error
    assert _texts(result) == [
        'Validation failed for tool "work":\n'
        "  - mode: must have required property 'mode'\n"
        "  - n: must be integer\n\n"
        'Received arguments:\n{\n  "n": "many"\n}'
    ]
    assert h.work.calls == []


async def test_execute_gets_coerced_copy(harness: HarnessFactory) -> None:
    seen: list[BaseModel] = []
    h = harness([Reply([Call("A", "work", {"mode": "ok", "n": "5"})])])
    h.agent.before_tool_call = lambda call, args: seen.append(args)
    await h.agent.prompt("go")
    assert seen == [WorkParams(mode="ok", n=5)]
    assert _texts(_results(h)[0]) == ["ok A x5"]
    reply = h.agent.state.messages[1]
    assert isinstance(reply, AssistantMessage)
    assert reply.tool_calls()[0].arguments == {"mode": "ok", "n": "5"}


async def test_before_tool_call_blocks(harness: HarnessFactory) -> None:
    calls = [Call("A", "work", {"mode": "ok"}), Call("B", "work", {"mode": "ok"})]
    h = harness([Reply(calls)])
    reasons = {"A": "not allowed here", "B": ""}
    h.agent.before_tool_call = lambda call, args: reasons[call.id]
    await h.agent.prompt("go")
    assert [(_texts(r), r.is_error) for r in _results(h)] == [
        (["not allowed here"], True),
        ([BLOCKED_TEXT], True),
    ]
    assert h.work.calls == []


async def test_before_tool_call_awaits_a_decision(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "ok"})])])
    decision: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
    asked = asyncio.Event()

    async def ask(call: ToolCall, args: BaseModel) -> str | None:
        asked.set()
        return await decision

    h.agent.before_tool_call = ask
    run = asyncio.create_task(h.agent.prompt("go"))
    await asked.wait()
    assert h.work.calls == [] and h.agent.state.pending_tool_calls == {"A"}
    decision.set_result(None)  # approve
    await run
    assert h.work.calls == ["A"]


async def test_abort_while_awaiting_decision_cancels_the_hook(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "ok"})])])
    cancelled: list[bool] = []

    async def ask(call: ToolCall, args: BaseModel) -> str | None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return None

    h.agent.before_tool_call = ask
    h.agent.subscribe(lambda e: h.agent.abort() if isinstance(e, ToolExecutionStartEvent) else None)
    await h.agent.prompt("go")
    assert cancelled == [True]
    (result,) = _results(h)
    assert result.is_error and _texts(result) == [ABORTED_TEXT]
    assert h.work.calls == []


async def test_before_tool_call_raising_fails_only_the_call(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "ok"})]), Reply([Text("ok")])])

    def broken(call: ToolCall, args: BaseModel) -> str | None:
        raise ValueError("gate is broken")

    h.agent.before_tool_call = broken
    result = await _run_one(h)
    assert result.is_error and _texts(result) == ["gate is broken"]


async def test_after_tool_call_overrides_field_by_field(harness: HarnessFactory) -> None:
    calls = [Call("A", "work", {"mode": "ok"}), Call("B", "work", {"mode": "raise"})]
    h = harness([Reply(calls)])
    seen: list[tuple[str, bool]] = []

    async def after(ctx: AfterToolCallContext) -> AfterToolCallResult | None:
        seen.append((ctx.tool_call.id, ctx.is_error))
        if ctx.tool_call.id == "A":
            return AfterToolCallResult(details={"lines": 3})
        return AfterToolCallResult(content=[TextContent(text="recovered")], is_error=False)

    h.agent.after_tool_call = after
    await h.agent.prompt("go")
    a, b = _results(h)
    assert (_texts(a), a.details, a.is_error) == (["ok A x1"], {"lines": 3}, False)
    assert (_texts(b), b.details, b.is_error) == (["recovered"], {}, False)
    assert seen == [("A", False), ("B", True)]
    ends = [e for e in h.events if isinstance(e, ToolExecutionEndEvent)]
    assert ends[1].result.content == [TextContent(text="recovered")] and not ends[1].is_error


class LateUpdater(AgentTool):
    """Keeps its update callback and calls it after returning (a misbehaving tool)."""

    name = "late"
    label = "Late"
    description = "Updates after finishing."
    parameters = WorkParams

    def __init__(self) -> None:
        self.keep: list[UpdateCallback] = []

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        self.keep.append(on_update)
        on_update(AgentToolResult(content=[TextContent(text="early")]))
        return AgentToolResult(content=[TextContent(text="done")])


async def test_updates_after_the_result_are_dropped(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "late", {"mode": "ok"})])])
    tool = LateUpdater()
    h.agent.state.tools.append(tool)
    await h.agent.prompt("go")
    tool.keep[0](AgentToolResult(content=[TextContent(text="late")]))
    await asyncio.sleep(0)
    names = h.names()
    assert names.count("tool_execution_update:A") == 1
    assert names.index("tool_execution_update:A") < names.index("tool_execution_end:A")


class Boom(Exception):
    def __str__(self) -> str:
        return ""


class SilentFailure(AgentTool):
    name = "silent"
    label = "Silent"
    description = "Raises an exception without a message."
    parameters = WorkParams

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        raise Boom


async def test_exception_without_text_names_its_type(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "silent", {"mode": "ok"})]), Reply([Text("ok")])])
    h.agent.state.tools.append(SilentFailure())
    result = await _run_one(h)
    assert _texts(result) == ["Boom"]


async def test_tool_error_class_is_exported() -> None:
    assert str(ToolError("exact text")) == "exact text"


async def test_filter_tool_result_sees_updates_results_and_errors(harness: HarnessFactory) -> None:
    calls = [Call("A", "work", {"mode": "update"}), Call("B", "work", {"mode": "tool_error"})]
    h = harness([Reply(calls), Reply([Text("ok")])])

    def shout(result: AgentToolResult) -> AgentToolResult:
        texts = [
            TextContent(text=c.text.upper()) for c in result.content if isinstance(c, TextContent)
        ]
        return result.model_copy(update={"content": texts})

    h.agent.filter_tool_result = shout
    await h.agent.prompt("go")
    updates = [e.partial_result for e in h.events if isinstance(e, ToolExecutionUpdateEvent)]
    assert [_texts_of(u) for u in updates] == [["HALF"]]
    assert [_texts(r) for r in _results(h)] == [["OK A X1"], ["TOOL ERROR TEXT B"]]
    assert h.model.contexts[1].messages[-1] == _results(h)[-1]  # the model got the filtered one
