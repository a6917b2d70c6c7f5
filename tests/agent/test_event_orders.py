"""PI_SPEC §3.5 (a)–(e): emission orders asserted event by event."""

from __future__ import annotations

from pitui.agent.events import (
    AgentEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
)
from pitui.agent.tool_exec import TRUNCATED_TEXT
from pitui.ai.types import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from tests.agent.conftest import HarnessFactory
from tests.agent.scripted import Call, Reply, Text, Thinking, user

ASSISTANT_TEXT = [
    "message_start:assistant",
    "message_update:text_start",
    "message_update:text_delta",
    "message_update:text_delta",
    "message_update:text_end",
    "message_end:assistant",
]


async def test_a_plain_reply(harness: HarnessFactory) -> None:
    h = harness([Reply([Text("hello")])])
    await h.agent.prompt("hi")
    assert h.names() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        *ASSISTANT_TEXT,
        "turn_end",
        "agent_end",
    ]
    start = h.events[4]
    assert isinstance(start, MessageStartEvent) and isinstance(start.message, AssistantMessage)
    assert start.message.content == []
    end = h.events[-1]
    assert isinstance(end, AgentEndEvent)
    assert [m.role for m in end.messages] == ["user", "assistant"]
    assert h.agent.state.messages == end.messages
    prompt = h.agent.state.messages[0]
    assert isinstance(prompt, UserMessage) and prompt.content == [TextContent(text="hi")]


async def test_a_updates_carry_snapshots_and_raw_events(harness: HarnessFactory) -> None:
    h = harness([Reply([Thinking("hmm"), Text("hello")])])
    await h.agent.prompt("hi")
    updates = [e for e in h.events if isinstance(e, MessageUpdateEvent)]
    assert [u.assistant_message_event.type for u in updates] == [
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
    ]
    texts = [u.message.text() for u in updates[4:]]
    assert texts == ["", "he", "hello", "hello"]  # each a snapshot, not the live partial
    final = h.agent.state.messages[-1]
    assert all(u.message is not final for u in updates)


async def test_a_start_of_run_steering_is_delivered_without_extra_turn(
    harness: HarnessFactory,
) -> None:
    h = harness([Reply([Text("hello")])])
    h.agent.steer(user("also this"))
    await h.agent.prompt("hi")
    assert h.names()[:7] == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
    ]
    assert [m.role for m in h.model.contexts[0].messages] == ["user", "user"]


def _two_calls(mode_a: str = "slow", mode_b: str = "ok", tool_b: str = "work") -> Reply:
    return Reply([Call("A", "work", {"mode": mode_a}), Call("B", tool_b, {"mode": mode_b})])


TWO_CALLS_ASSISTANT = [
    "message_start:assistant",
    "message_update:toolcall_start",
    "message_update:toolcall_delta",
    "message_update:toolcall_delta",
    "message_update:toolcall_end",
    "message_update:toolcall_start",
    "message_update:toolcall_delta",
    "message_update:toolcall_delta",
    "message_update:toolcall_end",
    "message_end:assistant",
]


async def test_b_parallel_results_in_source_order(harness: HarnessFactory) -> None:
    h = harness([_two_calls("slow", "update"), Reply([Text("ok")])])
    await h.agent.prompt("go")
    assert h.names(updates=False) == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        *TWO_CALLS_ASSISTANT,
        "tool_execution_start:A",
        "tool_execution_start:B",
        "tool_execution_end:A",
        "message_start:toolResult:A",
        "message_end:toolResult:A",
        "tool_execution_end:B",
        "message_start:toolResult:B",
        "message_end:toolResult:B",
        "turn_end",
        "turn_start",
        *[n.replace("hello", "ok") for n in ASSISTANT_TEXT],
        "turn_end",
        "agent_end",
    ]
    # B (fast) finished before A (slow) and its update streamed before A's end.
    names = h.names()
    update = names.index("tool_execution_update:B")
    assert names.index("tool_execution_start:B") < update < names.index("tool_execution_end:A")
    assert h.work.calls == ["A", "B"]
    turn_end = next(e for e in h.events if isinstance(e, TurnEndEvent))
    assert [r.tool_call_id for r in turn_end.tool_results] == ["A", "B"]


async def test_b_sequential_mode(harness: HarnessFactory) -> None:
    h = harness([_two_calls("update", "ok"), Reply([Text("ok")])], tool_execution="sequential")
    await h.agent.prompt("go")
    assert h.names()[14:25] == [
        "tool_execution_start:A",
        "tool_execution_update:A",
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


async def test_b_sequential_tool_runs_alone_between_parallel_ones(harness: HarnessFactory) -> None:
    reply = Reply(
        [
            Call("A", "work", {"mode": "ok"}),
            Call("S", "seq", {"mode": "ok"}),
            Call("C", "work", {"mode": "ok"}),
            Call("D", "work", {"mode": "ok"}),
        ]
    )
    h = harness([reply])
    await h.agent.prompt("go")
    tools = [n for n in h.names() if n.startswith(("tool_", "message_end:toolResult"))]
    assert tools == [
        "tool_execution_start:A",
        "tool_execution_end:A",
        "message_end:toolResult:A",
        "tool_execution_start:S",
        "tool_execution_end:S",
        "message_end:toolResult:S",
        "tool_execution_start:C",
        "tool_execution_start:D",
        "tool_execution_end:C",
        "message_end:toolResult:C",
        "tool_execution_end:D",
        "message_end:toolResult:D",
    ]


async def test_b_failed_preparation_resolves_before_next_start(harness: HarnessFactory) -> None:
    reply = Reply([Call("A", "work", {"mode": "ok"}), Call("B", "nope", {}), Call("C", "work", {})])
    h = harness([reply])
    await h.agent.prompt("go")
    tools = [n for n in h.names() if n.startswith("tool_")]
    assert tools == [
        "tool_execution_start:A",
        "tool_execution_start:B",
        "tool_execution_end:B",
        "tool_execution_start:C",
        "tool_execution_end:C",
        "tool_execution_end:A",
    ]
    turn_end = next(e for e in h.events if isinstance(e, TurnEndEvent))
    assert [r.tool_call_id for r in turn_end.tool_results] == ["B", "C", "A"]


async def test_c_tool_throws(harness: HarnessFactory) -> None:
    seen: list[bool] = []
    h = harness([Reply([Call("A", "work", {"mode": "raise"})]), Reply([Text("sorry")])])
    h.agent.after_tool_call = lambda ctx: seen.append(ctx.is_error)
    await h.agent.prompt("go")
    assert h.names()[10:16] == [
        "tool_execution_start:A",
        "tool_execution_end:A",
        "message_start:toolResult:A",
        "message_end:toolResult:A",
        "turn_end",
        "turn_start",
    ]
    end = next(e for e in h.events if isinstance(e, ToolExecutionEndEvent))
    assert end.is_error
    assert end.result.content == [TextContent(text="work failed for A")]
    assert end.result.details == {}
    assert seen == [True]
    second = h.model.contexts[1].messages[-1]
    assert isinstance(second, ToolResultMessage) and second.is_error
    assert second.content == [TextContent(text="work failed for A")]
    assert h.names()[-1] == "agent_end"


async def test_d_abort_mid_stream(harness: HarnessFactory) -> None:
    reply = Reply([Text("partial"), Call("A", "work", {"mode": "ok"})], hang=True)
    h = harness([reply])

    def abort_at_tool_end(event: object) -> None:
        if (
            isinstance(event, MessageUpdateEvent)
            and event.assistant_message_event.type == "toolcall_end"
        ):
            h.agent.abort()

    h.agent.subscribe(abort_at_tool_end)
    await h.agent.prompt("go")
    assert h.names() == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_update:text_start",
        "message_update:text_delta",
        "message_update:text_delta",
        "message_update:text_end",
        "message_update:toolcall_start",
        "message_update:toolcall_delta",
        "message_update:toolcall_delta",
        "message_update:toolcall_end",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    final = h.agent.state.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "aborted" and final.error_message
    assert final.text() == "partial" and [c.id for c in final.tool_calls()] == ["A"]
    assert h.work.calls == []
    assert h.agent.state.error == final.error_message


async def test_d_abort_during_tools(harness: HarnessFactory) -> None:
    reply = Reply([Call("A", "work", {"mode": "slow"}), Call("B", "work", {"mode": "slow"})])
    h = harness([reply, Reply([Text("never")])])

    def abort_at_second_start(event: object) -> None:
        if isinstance(event, ToolExecutionStartEvent) and event.tool_call_id == "B":
            h.agent.abort()

    h.agent.subscribe(abort_at_second_start)
    await h.agent.prompt("go")
    assert h.names()[14:] == [
        "tool_execution_start:A",
        "tool_execution_start:B",
        "tool_execution_end:A",
        "message_start:toolResult:A",
        "message_end:toolResult:A",
        "tool_execution_end:B",
        "message_start:toolResult:B",
        "message_end:toolResult:B",
        "turn_end",
        "turn_start",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert sorted(h.work.saw_abort) == ["A", "B"]
    results = [m for m in h.agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("A", True), ("B", True)]
    assert results[0].content == [TextContent(text="Operation aborted")]
    last = h.agent.state.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted" and last.content == []


async def test_e_length_reply_fails_its_calls_and_continues(harness: HarnessFactory) -> None:
    reply = Reply(
        [Call("A", "work", {"mode": "ok"}), Call("B", "work", {"mode": "ok"}, complete=False)],
        stop="length",
    )
    h = harness([reply, Reply([Text("retrying")])])
    await h.agent.prompt("go")
    assert h.names()[4:] == [
        "message_start:assistant",
        "message_update:toolcall_start",
        "message_update:toolcall_delta",
        "message_update:toolcall_delta",
        "message_update:toolcall_end",
        "message_update:toolcall_start",
        "message_update:toolcall_delta",
        "message_end:assistant",
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
        "message_start:assistant",
        "message_update:text_start",
        "message_update:text_delta",
        "message_update:text_delta",
        "message_update:text_end",
        "message_end:assistant",
        "turn_end",
        "agent_end",
    ]
    assert h.work.calls == []
    ends = [e for e in h.events if isinstance(e, ToolExecutionEndEvent)]
    assert all(e.is_error for e in ends)
    assert ends[0].result.content == [TextContent(text=TRUNCATED_TEXT.format(name="work"))]
    assert "output token limit" in TRUNCATED_TEXT
    assert not [e for e in h.events if isinstance(e, ToolExecutionUpdateEvent)]


async def test_e_length_without_calls_ends_the_run(harness: HarnessFactory) -> None:
    h = harness([Reply([Text("cut of")], stop="length")])
    await h.agent.prompt("go")
    assert h.names()[-3:] == ["message_end:assistant", "turn_end", "agent_end"]
    assert len(h.model.contexts) == 1
