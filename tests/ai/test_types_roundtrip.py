"""Every protocol message pi wrote round-trips through the pydantic model to equal JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from pitui.ai._base import LOAD_CONTEXT
from pitui.ai.types import AssistantMessage, Message, Usage, UserMessage

PI_SESSIONS = Path(__file__).parents[1] / "fixtures" / "pi-sessions"
_adapter: TypeAdapter[Message] = TypeAdapter(Message)


def _protocol_messages() -> list[dict[str, Any]]:
    found = []
    for path in sorted(PI_SESSIONS.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            message = json.loads(line).get("message")
            if message and message["role"] in ("user", "assistant", "toolResult"):
                found.append(message)
    return found


def test_fixture_has_messages() -> None:
    assert len(_protocol_messages()) > 1000


@pytest.mark.parametrize("path", sorted(PI_SESSIONS.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_message_round_trips(path: Path) -> None:
    for line in path.read_text().splitlines():
        message = json.loads(line).get("message")
        if not message or message["role"] not in ("user", "assistant", "toolResult"):
            continue
        loaded = _adapter.validate_python(message, context=LOAD_CONTEXT)
        assert _adapter.dump_python(loaded, mode="json") == message


def test_built_in_code_dumps_defaults_and_omits_unset_optionals() -> None:
    message = AssistantMessage(api="anthropic-messages", provider="anthropic", model="m")
    data = message.to_json_dict()
    assert data["usage"]["totalTokens"] == 0
    assert data["stopReason"] == "stop"
    assert "errorMessage" not in data


def test_loaded_object_keeps_exactly_its_keys_and_extras() -> None:
    usage = Usage.load({"input": 3, "strayField": True})
    assert usage.to_json_dict() == {"input": 3, "strayField": True}
    usage.output = 4
    assert usage.to_json_dict() == {"input": 3, "strayField": True, "output": 4}


def test_user_content_may_be_string_or_blocks() -> None:
    assert UserMessage.load({"role": "user", "content": "hi", "timestamp": 1}).content == "hi"
    blocks = UserMessage.load(
        {"role": "user", "content": [{"type": "text", "text": "a"}], "timestamp": 1}
    )
    assert not isinstance(blocks.content, str)
