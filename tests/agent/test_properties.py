"""Invariants 1 and 2 of the agent loop, checked over random scripted conversations.

1. Every request, as it goes to the model and after the provider replay transform
   (PI_SPEC 2.1), pairs each tool call with exactly one result, after it and before the next
   assistant/user message; and the loop never calls the model while a call of the previous
   (non-failed) reply lacks its result.
2. transform_context / convert_to_llm never change ``agent.state.messages``.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.agent.agent import Agent, AgentError
from pitui.agent.events import AgentEvent
from pitui.agent.messages import AgentMessage, CustomAgentMessage, default_convert_to_llm
from pitui.agent.state import AgentState
from pitui.ai.abort import AbortSignal
from pitui.ai.types import AssistantMessage, Context, Message, TextContent, UserMessage
from tests.agent.scripted import (
    MODEL,
    Block,
    Call,
    Reply,
    ScriptedModel,
    SeqTool,
    Text,
    Thinking,
    WorkTool,
    pairing_errors,
    replay_transform,
    user,
)

PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass
class CallSpec:
    name: str
    mode: str
    invalid: bool


@dataclass
class ReplySpec:
    text: bool
    thinking: bool
    calls: list[CallSpec]
    stop: Literal["auto", "length", "error"]
    fail_before_start: bool
    truncate_last: bool


@dataclass
class Scenario:
    replies: list[ReplySpec]
    abort_at: int | None
    steer_at: list[int]
    follow_at: list[int]
    tool_execution: Literal["parallel", "sequential"]
    queue_mode: Literal["one-at-a-time", "all"]
    continues: int


call_specs = st.builds(
    CallSpec,
    name=st.sampled_from(["work", "work", "work", "seq", "nope"]),
    mode=st.sampled_from(["ok", "raise", "tool_error", "slow", "update"]),
    invalid=st.booleans(),
)
reply_specs = st.builds(
    ReplySpec,
    text=st.booleans(),
    thinking=st.booleans(),
    calls=st.lists(call_specs, max_size=3),
    stop=st.sampled_from(["auto", "auto", "auto", "length", "error"]),
    fail_before_start=st.integers(0, 9).map(lambda n: n == 0),
    truncate_last=st.booleans(),
)
scenarios = st.builds(
    Scenario,
    replies=st.lists(reply_specs, min_size=1, max_size=4),
    abort_at=st.none() | st.integers(0, 70),
    steer_at=st.lists(st.integers(0, 70), max_size=2),
    follow_at=st.lists(st.integers(0, 70), max_size=2),
    tool_execution=st.sampled_from(["parallel", "sequential"]),
    queue_mode=st.sampled_from(["one-at-a-time", "all"]),
    continues=st.integers(0, 2),
)


def build_replies(specs: list[ReplySpec]) -> list[Reply]:
    replies = []
    for r, spec in enumerate(specs):
        blocks: list[Block] = []
        if spec.thinking:
            blocks.append(Thinking("let me think"))
        if spec.text:
            blocks.append(Text("working on it"))
        for c, call in enumerate(spec.calls):
            args = {"n": "x"} if call.invalid else {"mode": call.mode, "n": "2"}
            blocks.append(Call(f"r{r}c{c}", call.name, args))
        if spec.stop == "length" and spec.truncate_last and spec.calls:
            last = blocks[-1]
            assert isinstance(last, Call)
            last.complete = False
        replies.append(Reply(blocks, spec.stop, spec.fail_before_start))
    return replies


def make_agent(model: ScriptedModel, scenario: Scenario) -> Agent:
    state = AgentState(system_prompt="sys", model=MODEL, tools=[WorkTool(), SeqTool()])
    return Agent(
        initial_state=state,
        stream_fn=model,
        tool_execution=scenario.tool_execution,
        steering_mode=scenario.queue_mode,
        follow_up_mode=scenario.queue_mode,
    )


def check_request(context: Context, seen: list[str]) -> None:
    raw = list(context.messages)
    seen.extend(f"raw: {p}" for p in pairing_errors(raw, skip_failed=True))
    wire = replay_transform(raw, MODEL)
    seen.extend(f"wire: {p}" for p in pairing_errors(wire, skip_failed=False))
    failed = [m for m in wire if isinstance(m, AssistantMessage) and m.stop_reason == "error"]
    seen.extend("wire: failed reply replayed" for _ in failed)


def check_tool_events(events: list[AgentEvent], seen: list[str]) -> None:
    started: dict[str, int] = {}
    ended: dict[str, int] = {}
    for event in events:
        if event.type == "tool_execution_start":
            started[event.tool_call_id] = started.get(event.tool_call_id, 0) + 1
        elif event.type == "tool_execution_end":
            if event.tool_call_id not in started:
                seen.append(f"end before start: {event.tool_call_id}")
            ended[event.tool_call_id] = ended.get(event.tool_call_id, 0) + 1
    if started != ended or any(n != 1 for n in started.values()):
        seen.append(f"tool events unpaired: {started} vs {ended}")
    kinds = [e.type for e in events]
    if kinds.count("agent_start") != kinds.count("agent_end") or kinds[-1] != "agent_end":
        seen.append("runs not closed by agent_end")


async def play_scenario(scenario: Scenario) -> list[str]:
    problems: list[str] = []
    model = ScriptedModel(build_replies(scenario.replies))
    model.on_call = lambda context: check_request(context, problems)
    agent = make_agent(model, scenario)
    events: list[AgentEvent] = []
    count = [0]

    def act(event: AgentEvent) -> None:
        events.append(event)
        index = count[0]
        count[0] += 1
        if index == scenario.abort_at:
            agent.abort()
        if index in scenario.steer_at:
            agent.steer(user(f"steer {index}"))
        if index in scenario.follow_at:
            agent.follow_up(user(f"follow {index}"))

    agent.subscribe(act)
    await agent.prompt("start")
    for _ in range(scenario.continues):
        try:
            await agent.continue_()
        except AgentError:
            break
    final: list[Message] = default_convert_to_llm(agent.state.messages)
    problems.extend(f"state: {p}" for p in pairing_errors(final, skip_failed=True))
    check_tool_events(events, problems)
    return problems


@PROPERTY_SETTINGS
@given(scenarios)
def test_every_request_pairs_tool_calls_with_results(scenario: Scenario) -> None:
    assert asyncio.run(play_scenario(scenario)) == []


# --------------------------------------------------------------------------- invariant 2

MUTATIONS = ["edit", "drop", "reverse", "insert", "clear"]


def mutate(messages: list[AgentMessage], how: str) -> None:
    """Vandalise ``messages`` in place, nested objects included."""
    if how == "edit":
        for message in messages:
            if isinstance(message, UserMessage) and isinstance(message.content, list):
                message.content.append(TextContent(text="injected"))
            elif isinstance(message, AssistantMessage):
                for block in message.tool_calls():
                    block.arguments["mode"] = "hacked"
                message.stop_reason = "stop"
            message.timestamp = 0
    elif how == "drop" and messages:
        messages.pop(0)
    elif how == "reverse":
        messages.reverse()
    elif how == "insert":
        messages.insert(0, CustomAgentMessage(role="note"))
    elif how == "clear":
        for message in messages:
            content = getattr(message, "content", None)
            if isinstance(content, list):
                content.clear()


@PROPERTY_SETTINGS
@given(
    replies=st.lists(reply_specs, min_size=1, max_size=3),
    transform_how=st.sampled_from(MUTATIONS),
    convert_how=st.sampled_from(MUTATIONS),
    use_async=st.booleans(),
)
def test_hooks_never_change_the_transcript(
    replies: list[ReplySpec], transform_how: str, convert_how: str, use_async: bool
) -> None:
    asyncio.run(_purity(replies, transform_how, convert_how, use_async))


async def _purity(
    replies: list[ReplySpec], transform_how: str, convert_how: str, use_async: bool
) -> None:
    scenario = Scenario(replies, None, [], [], "parallel", "one-at-a-time", 0)
    model = ScriptedModel(build_replies(replies))
    agent = make_agent(model, scenario)
    before: list[list[AgentMessage]] = []
    calls = [0]

    def sync_transform(
        messages: list[AgentMessage], signal: AbortSignal | None
    ) -> list[AgentMessage]:
        before.append(copy.deepcopy(agent.state.messages))
        mutate(messages, transform_how)
        return [*messages, user("extra context")]

    async def async_transform(
        messages: list[AgentMessage], signal: AbortSignal | None
    ) -> list[AgentMessage]:
        await asyncio.sleep(0)
        return sync_transform(messages, signal)

    def convert(messages: list[AgentMessage]) -> list[Message]:
        calls[0] += 1
        converted = default_convert_to_llm(messages)
        mutate(messages, convert_how)
        return converted

    def after_both(context: Context) -> None:
        assert agent.state.messages == before[-1]

    agent.transform_context = async_transform if use_async else sync_transform
    agent.convert_to_llm = convert
    model.on_call = after_both
    await agent.prompt("start")
    assert calls[0] == len(model.contexts) == len(before) >= 1
    assert agent.state.messages[-1].role == "assistant"
