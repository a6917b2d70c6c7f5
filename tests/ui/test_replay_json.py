"""The view read from message JSON equals the view of the same messages once validated."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from pitui.agent.messages import AgentMessage
from pitui.ui.view.replay import state_from_messages
from pitui.ui.view.replay_json import state_from_json
from tests.ui.test_replay import MESSAGES, _fields


@settings(max_examples=300, deadline=None)
@given(MESSAGES)
def test_json_view_equals_the_typed_view(messages: list[AgentMessage]) -> None:
    as_json = [m.to_json_dict() for m in messages]
    assert _fields(state_from_json(as_json)) == _fields(state_from_messages(messages))


@pytest.mark.parametrize(
    "message",
    [
        {"content": "no role"},
        {"role": "user", "content": 3},
        {"role": "user", "content": [{"type": "text", "text": 1}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": 2}]},
        {"role": "assistant", "content": [{"type": "video"}]},
        {"role": "assistant", "content": [], "usage": "lots"},
        {"role": "assistant", "content": [], "timestamp": "now"},
        {"role": "toolResult", "toolCallId": "c", "toolName": "read", "isError": "no"},
        {"role": "toolResult", "toolName": "read"},
    ],
)
def test_a_malformed_message_raises(message: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="message"):
        state_from_json([message])


def test_unknown_roles_are_not_shown() -> None:
    state = state_from_json([{"role": "somethingElse"}, {"role": "user", "content": "hi"}])
    assert [i.id for i in state.items] == ["m1"]
