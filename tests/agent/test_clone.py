"""The fast copies the loop relies on: equal, independent, keys preserved."""

from __future__ import annotations

from pitui.agent.clone import deep_clone, shallow_copy
from pitui.agent.loop import snapshot
from pitui.agent.messages import parse_agent_message
from pitui.ai.types import AssistantMessage, TextContent, ToolCall


def _assistant() -> AssistantMessage:
    return AssistantMessage(
        api="a",
        provider="p",
        model="m",
        content=[
            TextContent(text="hi"),
            ToolCall(id="c", name="t", arguments={"a": [1, {"b": 2}]}),
        ],
    )


def test_deep_clone_is_equal_and_independent() -> None:
    original = AssistantMessage.load({**_assistant().to_json_dict(), "extra": {"k": [1]}})
    clone = deep_clone(original)
    assert clone == original and clone.to_json_dict() == original.to_json_dict()
    call = clone.content[1]
    assert isinstance(call, ToolCall)
    call.arguments["a"][1]["b"] = 3
    clone.usage.cost.total = 9
    assert clone.__pydantic_extra__ is not None
    clone.__pydantic_extra__["extra"]["k"].append(2)
    assert original.to_json_dict()["extra"] == {"k": [1]}
    first = original.content[1]
    assert isinstance(first, ToolCall) and first.arguments == {"a": [1, {"b": 2}]}
    assert original.usage.cost.total == 0


def test_deep_clone_keeps_unknown_roles() -> None:
    opaque = parse_agent_message({"role": "mystery", "timestamp": 1, "payload": {"x": [1]}})
    assert deep_clone(opaque).to_json_dict() == opaque.to_json_dict()


def test_shallow_copy_and_snapshot() -> None:
    live = _assistant()
    copied = shallow_copy(live)
    assert copied == live and copied is not live and copied.content is live.content
    snap = snapshot(live)
    text = live.content[0]
    assert isinstance(text, TextContent)
    text.text += " there"
    live.content.append(TextContent(text="more"))
    live.usage.output = 5
    live.usage.cost.total = 1
    assert [b.type for b in snap.content] == ["text", "toolCall"]
    assert snap.text() == "hi" and snap.usage.output == 0 and snap.usage.cost.total == 0


async def test_a_converter_gets_a_copy_unless_it_is_declared_to_leave_its_input_alone() -> None:
    from pitui.agent.config import AgentContext
    from pitui.agent.loop import build_llm_context
    from pitui.agent.messages import AgentMessage, default_convert_to_llm, leaves_input_alone
    from pitui.ai.abort import AbortSignal
    from pitui.ai.types import Message, TextContent, UserMessage

    seen: list[list[AgentMessage]] = []

    def editing(messages: list[AgentMessage]) -> list[Message]:
        seen.append(messages)
        return default_convert_to_llm(messages)

    class Hooks:
        transform_context = None
        convert_to_llm = staticmethod(editing)

    original = UserMessage(content=[TextContent(text="hi")])
    context = AgentContext("", [original], [])
    await build_llm_context(context, Hooks(), AbortSignal())
    assert seen[-1][0] is not original and seen[-1][0] == original  # a deep copy
    leaves_input_alone(editing)
    await build_llm_context(context, Hooks(), AbortSignal())
    assert seen[-1][0] is original  # declared: the transcript itself
