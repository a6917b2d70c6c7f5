"""Benchmark of the agent loop: 1,000 turns of a scripted model, 3 parallel no-op tools each.

Runs through :class:`pitui.agent.agent.Agent` (state updates, one subscriber) with the
default ``convert_to_llm``. All 1,000 turns are one run, so the transcript grows to 4,000
messages. Then measures what custom ``transform_context``/``convert_to_llm`` hooks add per
model call: the deep copy of the transcript that keeps the hooks from changing it.

Usage: ``python bench/agent_loop.py [turns]``
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from pydantic import BaseModel

from pitui.agent.agent import Agent
from pitui.agent.config import AgentContext, AgentLoopConfig
from pitui.agent.events import AgentEvent
from pitui.agent.loop import build_llm_context
from pitui.agent.messages import AgentMessage, default_convert_to_llm
from pitui.agent.state import AgentState
from pitui.agent.tool import AgentTool, AgentToolResult, UpdateCallback
from pitui.ai.abort import AbortSignal
from pitui.ai.event_stream import AssistantMessageEventStream, run_stream
from pitui.ai.events import StartEvent, ToolCallDeltaEvent, ToolCallEndEvent, ToolCallStartEvent
from pitui.ai.options import StreamOptions
from pitui.ai.types import AssistantMessage, Context, Message, Model, TextContent, ToolCall

MODEL = Model(id="bench", api="bench", provider="bench")
TOOLS_PER_TURN = 3


class NoopParams(BaseModel):
    value: int = 0


class NoopTool(AgentTool):
    name = "noop"
    label = "No-op"
    description = "Does nothing."
    parameters = NoopParams

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(text="ok")])


class ScriptedBenchModel:
    """Replies with three tool calls until ``turns`` replies were given, then with text."""

    def __init__(self, turns: int) -> None:
        self.turns = turns
        self.calls = 0

    def __call__(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        self.calls += 1
        last = self.calls >= self.turns
        output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        turn = self.calls

        async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
            stream.push(StartEvent(partial=out))
            if last:
                out.content.append(TextContent(text="done"))
                return
            for index in range(TOOLS_PER_TURN):
                call = ToolCall(id=f"t{turn}-{index}", name="noop", arguments={})
                out.content.append(call)
                stream.push(ToolCallStartEvent(content_index=index, partial=out))
                stream.push(ToolCallDeltaEvent(content_index=index, delta="{}", partial=out))
                call.arguments = {"value": index}
                stream.push(ToolCallEndEvent(content_index=index, tool_call=call, partial=out))
            out.stop_reason = "toolUse"

        return run_stream(output, body, options.signal)


def custom_convert(messages: list[AgentMessage]) -> list[Message]:
    return default_convert_to_llm(messages)


async def run(turns: int) -> tuple[float, int, list[AgentMessage]]:
    model = ScriptedBenchModel(turns)
    state = AgentState(model=MODEL, tools=[NoopTool()])
    agent = Agent(initial_state=state, stream_fn=model)
    events = [0]

    def count(event: AgentEvent) -> None:
        events[0] += 1

    agent.subscribe(count)
    start = time.perf_counter()
    await agent.prompt("go")
    elapsed = time.perf_counter() - start
    assert model.calls == turns and agent.state.error is None
    return elapsed, events[0], agent.state.messages


async def hook_copy_cost(messages: list[AgentMessage], repeat: int = 5) -> float:
    """Seconds per model call that custom hooks add for a transcript of ``messages``."""
    config = AgentLoopConfig(model=MODEL, convert_to_llm=custom_convert)
    context = AgentContext("", messages, [NoopTool()])
    start = time.perf_counter()
    for _ in range(repeat):
        await build_llm_context(context, config, AbortSignal())
    with_hooks = (time.perf_counter() - start) / repeat
    config = AgentLoopConfig(model=MODEL)
    start = time.perf_counter()
    for _ in range(repeat):
        await build_llm_context(context, config, AbortSignal())
    return with_hooks - (time.perf_counter() - start) / repeat


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    elapsed, events, messages = asyncio.run(run(turns))
    print(
        f"{turns} turns x {TOOLS_PER_TURN} parallel no-op tools: {events} events, "
        f"{len(messages)} messages in {elapsed:.3f} s -> {turns / elapsed:,.0f} turns/s, "
        f"{elapsed / events * 1e6:.1f} µs/event (all-in: scripted model, loop, agent state)"
    )
    extra = asyncio.run(hook_copy_cost(messages))
    print(
        f"custom hooks: +{extra * 1e3:.1f} ms per model call for the deep copy of "
        f"{len(messages)} messages ({extra / len(messages) * 1e6:.1f} µs/message)"
    )


if __name__ == "__main__":
    main()
