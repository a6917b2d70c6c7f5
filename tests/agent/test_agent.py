"""Agent (PI_SPEC §3.2, §3.7, §3.10): state, preconditions, queues and the failure path."""

from __future__ import annotations

import asyncio

import pytest

from pitui.agent.agent import BUSY_CONTINUE, BUSY_PROMPT, Agent, AgentError
from pitui.agent.events import (
    AgentEndEvent,
    AgentEvent,
    MessageEndEvent,
    MessageUpdateEvent,
    ToolExecutionStartEvent,
)
from pitui.agent.messages import AgentMessage, CustomAgentMessage
from pitui.agent.state import AgentState
from pitui.agent.tool_exec import SKIPPED_TEXT
from pitui.ai.abort import AbortSignal
from pitui.ai.types import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from tests.agent.conftest import HarnessFactory
from tests.agent.scripted import Call, Reply, Text, text_reply, user


def _roles(messages: list[AgentMessage] | list[Message]) -> list[str]:
    return [m.role for m in messages]


# --------------------------------------------------------------------------- preconditions


async def test_prompt_and_continue_refuse_while_streaming(harness: HarnessFactory) -> None:
    h = harness([Reply([Text("slow")], pause_after_start=0.01)])
    run = asyncio.create_task(h.agent.prompt("hi"))
    await asyncio.sleep(0)
    assert h.agent.state.is_streaming
    with pytest.raises(AgentError, match="already processing a prompt") as info:
        await h.agent.prompt("again")
    assert str(info.value) == BUSY_PROMPT
    with pytest.raises(AgentError) as info2:
        await h.agent.continue_()
    assert str(info2.value) == BUSY_CONTINUE
    await run
    assert not h.agent.state.is_streaming


async def test_no_model() -> None:
    with pytest.raises(AgentError, match=r"^No model configured$"):
        await Agent().prompt("hi")


async def test_continue_preconditions(harness: HarnessFactory) -> None:
    h = harness()
    with pytest.raises(AgentError, match=r"^No messages to continue from$"):
        await h.agent.continue_()
    await h.agent.prompt("hi")
    with pytest.raises(AgentError, match=r"^Cannot continue from message role: assistant$"):
        await h.agent.continue_()


async def test_continue_from_user_tail_emits_no_user_events(harness: HarnessFactory) -> None:
    h = harness()
    h.agent.replace_messages([user("retry me")])
    await h.agent.continue_()
    assert h.names()[:3] == ["agent_start", "turn_start", "message_start:assistant"]
    assert _roles(h.agent.state.messages) == ["user", "assistant"]


async def test_continue_from_custom_tail(harness: HarnessFactory) -> None:
    h = harness()
    h.agent.replace_messages([user("a"), CustomAgentMessage(role="note")])
    await h.agent.continue_()
    assert _roles(h.model.contexts[0].messages) == ["user"]  # default converter drops it
    assert _roles(h.agent.state.messages) == ["user", "note", "assistant"]


async def test_continue_from_assistant_tail_drains_queues(harness: HarnessFactory) -> None:
    h = harness()
    await h.agent.prompt("hi")
    h.agent.steer(user("s1"))
    h.agent.steer(user("s2"))
    await h.agent.continue_()
    # one-at-a-time: s1 runs as the prompt (no start poll), s2 at the poll after the turn
    assert _roles(h.agent.state.messages) == ["user", "assistant"] * 3
    texts = [m.content[0].text for m in h.agent.state.messages[::2]]  # type: ignore[union-attr]
    assert texts == ["hi", "s1", "s2"]
    h.agent.follow_up(user("f1"))
    await h.agent.continue_()
    assert _roles(h.agent.state.messages)[-2:] == ["user", "assistant"]
    assert not h.agent.has_queued_messages()


async def test_prompt_with_images_and_messages(harness: HarnessFactory) -> None:
    h = harness()
    image = ImageContent(data="AAAA", mime_type="image/png")
    await h.agent.prompt("look", [image])
    first = h.agent.state.messages[0]
    assert isinstance(first, UserMessage)
    assert first.content == [TextContent(text="look"), image]
    await h.agent.prompt([user("a"), user("b")])
    assert _roles(h.agent.state.messages) == ["user", "assistant", "user", "user", "assistant"]


# --------------------------------------------------------------------------- state


async def test_state_follows_events(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "slow"})]), text_reply()])
    seen: list[str] = []

    def check(event: AgentEvent) -> None:
        state = h.agent.state
        if isinstance(event, MessageUpdateEvent):
            # updates replace the streaming message; history does not grow
            assert state.stream_message is event.message
            assert state.messages[-1] is not event.message
            seen.append(f"update:{len(state.messages)}")
        elif isinstance(event, MessageEndEvent):
            assert state.messages[-1] is event.message and state.stream_message is None
        elif isinstance(event, ToolExecutionStartEvent):
            assert state.pending_tool_calls == {"A"}
        assert state.is_streaming or isinstance(event, AgentEndEvent)

    h.agent.subscribe(check)
    await h.agent.prompt("go")
    assert seen and all(s == seen[0] for s in seen[: len(seen) // 2])
    assert not h.agent.state.is_streaming and h.agent.state.pending_tool_calls == set()
    assert _roles(h.agent.state.messages) == ["user", "assistant", "toolResult", "assistant"]


async def test_async_listener_is_awaited_in_order(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "ok"})]), text_reply()])
    persisted: list[str] = []

    async def slow_store(event: AgentEvent) -> None:
        if isinstance(event, MessageEndEvent):
            await asyncio.sleep(0.001)
            persisted.append(event.message.role)

    h.agent.subscribe(slow_store)
    await h.agent.prompt("go")
    assert persisted == ["user", "assistant", "toolResult", "assistant"]


async def test_unsubscribe(harness: HarnessFactory) -> None:
    h = harness()
    extra: list[AgentEvent] = []
    unsubscribe = h.agent.subscribe(extra.append)
    unsubscribe()
    unsubscribe()
    await h.agent.prompt("hi")
    assert extra == [] and h.events


async def test_wait_for_idle_and_reset(harness: HarnessFactory) -> None:
    h = harness([Reply([Text("slow")], pause_after_start=0.01)])
    await h.agent.wait_for_idle()  # idle: returns at once
    run = asyncio.create_task(h.agent.prompt("hi"))
    await asyncio.sleep(0)
    await h.agent.wait_for_idle()
    assert run.done() and len(h.agent.state.messages) == 2
    h.agent.follow_up(user("later"))
    h.agent.reset()
    assert h.agent.state.messages == [] and not h.agent.has_queued_messages()


async def test_stream_options_per_call(harness: HarnessFactory) -> None:
    keys = iter(["k1", None])

    async def get_key(provider: str) -> str | None:
        assert provider == "test"
        return next(keys)

    h = harness([Reply([Call("A", "work", {"mode": "ok"})]), text_reply()])
    h.agent.get_api_key = get_key
    h.agent.stream_options.api_key = "static"
    h.agent.session_id = "sess-1"
    h.agent.state.thinking_level = "high"
    await h.agent.prompt("hi")
    first, second = h.model.options
    assert (first.api_key, second.api_key) == ("k1", "static")
    assert first.reasoning == "high" and first.session_id == "sess-1"
    assert isinstance(first.signal, AbortSignal) and first.signal is second.signal
    context = h.model.contexts[0]
    assert context.system_prompt == "be brief"
    assert [t.name for t in context.tools or []] == ["work", "seq"]


# --------------------------------------------------------------------------- failure path


async def _fails(h_factory: HarnessFactory, **kwargs: object) -> tuple[list[str], AgentState]:
    h = h_factory([Reply([Call("A", "work", {"mode": "ok"})])], **kwargs)
    await h.agent.prompt("go")
    return h.names(), h.agent.state


def _raise_on_second_call() -> object:
    calls = [0]

    def transform(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        calls[0] += 1
        if calls[0] == 2:
            raise RuntimeError("transform exploded")
        return messages

    return transform


async def test_failure_path_transform_context(harness: HarnessFactory) -> None:
    names, state = await _fails(harness, transform_context=_raise_on_second_call())
    # the second turn starts, then only agent_end with the synthetic message
    assert names[-3:] == ["turn_end", "turn_start", "agent_end"]
    failed = state.messages[-1]
    assert isinstance(failed, AssistantMessage)
    assert failed.stop_reason == "error" and failed.error_message == "transform exploded"
    assert failed.content == [TextContent(text="")] and failed.usage.total_tokens == 0
    assert (failed.api, failed.provider, failed.model) == ("scripted", "test", "scripted-1")
    assert state.error == "transform exploded" and not state.is_streaming
    assert _roles(state.messages) == ["user", "assistant", "toolResult", "assistant"]


async def test_failure_path_convert_and_key_and_stream_fn(harness: HarnessFactory) -> None:
    def bad_convert(messages: list[AgentMessage]) -> list[Message]:
        raise ValueError("cannot convert")

    def bad_key(provider: str) -> str | None:
        raise KeyError("no key")

    names, state = await _fails(harness, convert_to_llm=bad_convert)
    assert names == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "agent_end",
    ]
    assert state.error == "cannot convert"
    names, state = await _fails(harness, get_api_key=bad_key)
    assert names[-1] == "agent_end" and state.error == "'no key'"
    h = harness()

    def bad_stream(*args: object) -> object:
        raise RuntimeError("No API key for provider: test")

    h.agent.stream_fn = bad_stream  # type: ignore[assignment]
    await h.agent.prompt("hi")
    end = h.events[-1]
    assert isinstance(end, AgentEndEvent) and len(end.messages) == 1
    assert h.agent.state.error == "No API key for provider: test"


async def test_failure_path_after_abort_is_aborted(harness: HarnessFactory) -> None:
    h = harness()

    def abort_then_fail(messages: list[AgentMessage]) -> list[Message]:
        h.agent.abort()
        raise RuntimeError("gone")

    h.agent.convert_to_llm = abort_then_fail
    await h.agent.prompt("hi")
    failed = h.agent.state.messages[-1]
    assert isinstance(failed, AssistantMessage) and failed.stop_reason == "aborted"


# --------------------------------------------------------------------------- queues


def _steer_at(h_agent: Agent, call_id: str, message: AgentMessage) -> None:
    def listener(event: AgentEvent) -> None:
        if getattr(event, "type", "") == "tool_execution_end" and event.tool_call_id == call_id:  # type: ignore[union-attr]
            h_agent.steer(message)

    h_agent.subscribe(listener)


async def test_steering_skips_remaining_sequential_calls(harness: HarnessFactory) -> None:
    calls = [Call("A", "work", {"mode": "ok"}), Call("B", "work", {"mode": "ok"})]
    h = harness([Reply(calls), text_reply()], tool_execution="sequential")
    _steer_at(h.agent, "A", user("stop, do X"))
    await h.agent.prompt("go")
    assert h.work.calls == ["A"]
    results = [m for m in h.agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("A", False), ("B", True)]
    assert results[1].content == [TextContent(text=SKIPPED_TEXT)]
    assert h.names()[14:24] == [
        "tool_execution_start:A",
        "tool_execution_end:A",
        "message_start:toolResult:A",
        "message_end:toolResult:A",
        "tool_execution_start:B",
        "tool_execution_end:B",
        "message_start:toolResult:B",
        "message_end:toolResult:B",
        "turn_end",
        "turn_start",
    ]
    assert h.names()[24:26] == ["message_start:user", "message_end:user"]
    assert _roles(h.model.contexts[1].messages)[-3:] == ["toolResult", "toolResult", "user"]


async def test_steering_during_parallel_preparation(harness: HarnessFactory) -> None:
    calls = [Call("A", "work", {"mode": "ok"}), Call("B", "work", {"mode": "ok"})]
    h = harness([Reply(calls), text_reply()])

    def steer_at_first_start(event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionStartEvent) and event.tool_call_id == "A":
            h.agent.steer(user("wait"))

    h.agent.subscribe(steer_at_first_start)
    await h.agent.prompt("go")
    tools = [n for n in h.names() if n.startswith("tool_")]
    # A was prepared (its start emitted), so it only gets its end; B gets both
    assert tools == [
        "tool_execution_start:A",
        "tool_execution_end:A",
        "tool_execution_start:B",
        "tool_execution_end:B",
    ]
    assert h.work.calls == []


async def test_follow_up_waits_until_the_agent_would_stop(harness: HarnessFactory) -> None:
    h = harness([Reply([Call("A", "work", {"mode": "ok"})]), text_reply("first"), text_reply()])
    _follow = user("and then?")

    def queue_early(event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionStartEvent):
            h.agent.follow_up(_follow)

    h.agent.subscribe(queue_early)
    await h.agent.prompt("go")
    assert _roles(h.agent.state.messages) == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    assert h.agent.state.messages[4] is _follow
    assert h.names().count("agent_end") == 1


async def test_all_mode_delivers_everything(harness: HarnessFactory) -> None:
    h = harness(steering_mode="all", follow_up_mode="all")
    for text in ("s1", "s2"):
        h.agent.steer(user(text))
    for text in ("f1", "f2"):
        h.agent.follow_up(user(text))
    await h.agent.prompt("go")
    assert _roles(h.agent.state.messages) == ["user"] * 3 + ["assistant"] + ["user"] * 2 + [
        "assistant"
    ]


async def test_queues_survive_abort_and_can_be_cleared(harness: HarnessFactory) -> None:
    h = harness([Reply([Text("x")], hang=True)])

    def steer_and_abort(event: AgentEvent) -> None:
        if isinstance(event, MessageUpdateEvent):
            if not h.agent.has_queued_messages():
                h.agent.steer(user("s"))
                h.agent.follow_up(user("f"))
            h.agent.abort()

    h.agent.subscribe(steer_and_abort)
    await h.agent.prompt("go")
    assert h.agent.has_queued_messages()
    assert _roles(h.agent.queued_steering) == ["user"] and len(h.agent.queued_follow_up) == 1
    h.agent.clear_steering_queue()
    assert h.agent.has_queued_messages()
    h.agent.clear_follow_up_queue()
    assert not h.agent.has_queued_messages()
    h.agent.steer(user("s"))
    h.agent.follow_up(user("f"))
    h.agent.clear_all_queues()
    assert not h.agent.has_queued_messages()
