"""Events built without validation are the events validation would build."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from pitui.ai.events import (
    TextDeltaEvent,
    TextEndEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
)
from pitui.ai.providers._fast_events import delta_factory, delta_run, fast_event
from pitui.ai.types import AssistantMessage, ToolCall


def test_same_as_validated() -> None:
    out = AssistantMessage(api="a", provider="p", model="m")
    fast = fast_event(TextDeltaEvent, content_index=2, delta="hé", partial=out)
    slow = TextDeltaEvent.model_validate({"content_index": 2, "delta": "hé", "partial": out})
    assert fast == slow
    assert fast.to_json_dict() == slow.to_json_dict()
    assert fast.partial is out
    call = ToolCall(id="t", name="n", arguments={"a": 1})
    end = fast_event(ToolCallEndEvent, content_index=0, tool_call=call, partial=out)
    assert end.to_json_dict()["toolCall"] == {
        "type": "toolCall",
        "id": "t",
        "name": "n",
        "arguments": {"a": 1},
    }


def test_factory_defaults_are_refused() -> None:
    class Listy(BaseModel):
        items: list[int] = Field(default_factory=list)

    with pytest.raises(TypeError, match="plain"):
        fast_event(Listy)


@pytest.mark.parametrize("cls", [TextDeltaEvent, ThinkingDeltaEvent, ToolCallDeltaEvent])
def test_delta_factory_builds_what_validation_builds(
    cls: type[TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent],
) -> None:
    out = AssistantMessage(api="a", provider="p", model="m")
    fast = delta_factory(cls)(out, 3, "piece 👋")
    slow = cls.model_validate({"content_index": 3, "delta": "piece 👋", "partial": out})
    assert type(fast) is cls
    assert fast == slow
    assert fast.to_json_dict() == slow.to_json_dict()
    assert fast.model_fields_set == slow.model_fields_set
    assert list(fast.__dict__) == list(slow.__dict__)
    assert fast.partial is out
    # Each event owns its bookkeeping: changing one leaves the next untouched.
    fast.delta = "changed"
    again = delta_factory(cls)(out, 3, "piece 👋")
    assert again.delta == "piece 👋" and again.__pydantic_extra__ == {}


def test_delta_factory_refuses_other_shapes() -> None:
    with pytest.raises(TypeError, match="unexpected fields"):
        delta_factory(TextEndEvent)  # type: ignore[type-var]


@pytest.mark.parametrize("cls", [TextDeltaEvent, ThinkingDeltaEvent, ToolCallDeltaEvent])
def test_delta_run_yields_what_the_factory_builds_when_read(
    cls: type[TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent],
) -> None:
    out = AssistantMessage(api="a", provider="p", model="m")
    pieces = ["a"]
    run = delta_run(cls)(out, 1, pieces)
    pieces += ["é", ""]  # read when iterated, not when the run is made
    events = list(run)
    expected = [delta_factory(cls)(out, 1, piece) for piece in ["a", "é", ""]]
    assert [type(event) for event in events] == [cls] * 3
    assert events == expected
    assert [e.model_fields_set for e in events] == [e.model_fields_set for e in expected]
    assert all(event.partial is out for event in events)
    assert events[0].__pydantic_extra__ is not events[1].__pydantic_extra__


def test_delta_run_refuses_other_shapes() -> None:
    with pytest.raises(TypeError, match="unexpected fields"):
        delta_run(TextEndEvent)  # type: ignore[type-var]


def test_own_models_are_built_unvalidated_as_validation_would_build_them() -> None:
    from pitui.agent.events import MessageEndEvent, ToolExecutionStartEvent
    from pitui.ai.events import StartEvent

    out = AssistantMessage(api="a", provider="p", model="m")
    cases: list[tuple[type[BaseModel], dict[str, object]]] = [
        (MessageEndEvent, {"message": out}),
        (StartEvent, {"partial": out}),
        (ToolExecutionStartEvent, {"args": {"a": 1}, "tool_name": "read", "tool_call_id": "c"}),
    ]
    for cls, fields in cases:
        built = cls(**fields)
        validated = cls.model_validate(fields)
        assert built == validated
        assert list(built.__dict__) == list(validated.__dict__)
        assert built.model_fields_set == validated.model_fields_set
        assert built.model_dump(mode="json", by_alias=True) == validated.model_dump(
            mode="json", by_alias=True
        )
    with pytest.raises(TypeError, match="missing field 'message'"):
        MessageEndEvent()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unknown fields \['extra'\]"):
        MessageEndEvent(message=out, extra=1)
