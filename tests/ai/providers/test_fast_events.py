"""Events built without validation are the events validation would build."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from pitui.ai.events import TextDeltaEvent, ToolCallEndEvent
from pitui.ai.providers._fast_events import fast_event
from pitui.ai.types import AssistantMessage, ToolCall


def test_same_as_validated() -> None:
    out = AssistantMessage(api="a", provider="p", model="m")
    fast = fast_event(TextDeltaEvent, content_index=2, delta="hé", partial=out)
    slow = TextDeltaEvent(content_index=2, delta="hé", partial=out)
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
