"""Loaded models share their set of set fields once a long-lived process asks for it,
and behave exactly as models with sets of their own: dumps, equality, assignment, copies."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest

from pitui.ai import _base
from pitui.ai.types import AssistantMessage, TextContent, ToolCall, UserMessage

USER = {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}


def _text(message: UserMessage) -> TextContent:
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block


@pytest.fixture
def sharing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(_base, "_shared_fields", None)
    _base.share_loaded_fields()
    yield


def test_off_by_default_each_model_has_its_own_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base, "_shared_fields", None)
    a, b = UserMessage.load(USER), UserMessage.load(USER)
    assert not _base.shares_fields(a)
    assert a.__pydantic_fields_set__ is not b.__pydantic_fields_set__


@pytest.mark.usefixtures("sharing")
def test_loaded_models_share_one_frozen_set_and_dump_as_before() -> None:
    a, b = UserMessage.load(USER), UserMessage.load({**USER, "timestamp": 2})
    assert _base.shares_fields(a)
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    first, other = _text(a), _text(b)
    assert first.__pydantic_fields_set__ is other.__pydantic_fields_set__
    assert a.to_json_dict() == USER
    assert a == UserMessage(content=[TextContent(text="hi")], timestamp=1)
    built = UserMessage(content=[TextContent(text="hi")])
    assert not _base.shares_fields(built)  # built in code: its own


@pytest.mark.usefixtures("sharing")
def test_extra_keys_are_kept_and_none_is_no_extras() -> None:
    data = {**USER, "content": [{"type": "text", "text": "hi", "partialJson": "{"}]}
    message = UserMessage.load(data)
    assert message.__pydantic_extra__ is None
    assert message.to_json_dict() == data
    assert message.model_dump_json(by_alias=True).count("partialJson") == 1


@pytest.mark.usefixtures("sharing")
def test_assignment_and_copies_get_a_set_of_their_own() -> None:
    a, b = UserMessage.load(USER), UserMessage.load(USER)
    a.timestamp = 5
    a.stray = "kept"  # an unknown key becomes an extra, as without sharing
    assert not _base.shares_fields(a)
    assert _base.shares_fields(b)
    assert a.to_json_dict() == {**USER, "timestamp": 5, "stray": "kept"}
    assert b.to_json_dict() == USER
    updated = b.model_copy(update={"timestamp": 9, "other": 1})
    assert updated.to_json_dict() == {**USER, "timestamp": 9, "other": 1}
    deep = copy.deepcopy(b)
    _text(deep).text = "changed"
    assert _text(b).text == "hi" and b.to_json_dict() == USER


@pytest.mark.usefixtures("sharing")
def test_an_unset_optional_stays_absent_after_loading() -> None:
    data = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"p": 1}}],
        "api": "demo",
        "provider": "demo",
        "model": "demo",
        "usage": {
            "input": 1,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 3,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "toolUse",
        "timestamp": 7,
    }
    message = AssistantMessage.load(data)
    assert isinstance(message.content[0], ToolCall)
    assert message.to_json_dict() == data


CALL = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}


@pytest.mark.usefixtures("sharing")
def test_loaded_tool_calls_share_their_unset_private_attributes_until_one_is_set() -> None:
    a, b = ToolCall.load(CALL), ToolCall.load({**CALL, "id": "c2"})
    assert a.__pydantic_private__ is b.__pydantic_private__
    assert a.arguments_problem is None and a == ToolCall.load(CALL)
    a.set_final_arguments({"path": "b"}, "not complete JSON")
    assert a.arguments_problem == "not complete JSON"
    assert b.arguments_problem is None
    assert ToolCall.load(CALL).arguments_problem is None
    c = ToolCall.load(CALL)
    c._arguments_problem = "set directly"
    assert c.arguments_problem == "set directly" and b.arguments_problem is None
    assert copy.deepcopy(b).__pydantic_private__ is not b.__pydantic_private__
    assert b.to_json_dict() == {**CALL, "id": "c2"}
