"""pi 1.6's ``system`` message: typed, kept exactly, listed, and never sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pitui.agent.messages import parse_agent_message
from pitui.ai.types import UserMessage
from pitui.core.messages import SystemMessage, convert_to_llm
from pitui.core.session.store import SessionStore

PI16 = Path(__file__).parents[1] / "fixtures" / "pi-1.6" / "session.jsonl"


def _system_messages() -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in PI16.read_text().splitlines()]
    return [
        line["message"]
        for line in lines
        if line.get("type") == "message" and line["message"]["role"] == "system"
    ]


def test_pi16_system_messages_are_typed_and_round_trip() -> None:
    first, change = _system_messages()
    leading = parse_agent_message(first)
    assert isinstance(leading, SystemMessage)
    assert list(leading.sections or {}) == ["preamble", "tools", "rules", "docs", "cwd"]
    assert [t.name for t in leading.tools_added or []] == ["read", "bash", "edit", "write"]
    assert leading.to_json_dict() == first
    later = parse_agent_message(change)
    assert isinstance(later, SystemMessage)
    assert [t.name for t in later.tools_removed or []] == ["bash", "edit", "write"]
    assert later.to_json_dict() == change
    assert leading.summary() == "5 sections, 4 tools"
    assert later.summary() == "tools, rules; −bash, −edit, −write"


def test_unknown_fields_are_kept() -> None:
    data = {"role": "system", "content": "be brief", "timestamp": 5, "futureField": {"x": 1}}
    message = parse_agent_message(data)
    assert isinstance(message, SystemMessage)
    assert message.to_json_dict() == data
    assert message.text() == "be brief"


def test_text_is_content_then_sections_as_pi_renders_it() -> None:
    message = SystemMessage.load(
        {
            "role": "system",
            "content": [{"type": "text", "text": "base"}],
            "sections": {"a": "<a>x</a>", "gone": None, "b": "<b>y</b>"},
            "timestamp": 1,
        }
    )
    assert message.text() == "base\n\n<a>x</a>\n\n<b>y</b>"


def test_system_messages_are_not_sent() -> None:
    system = SystemMessage(content="pi's prompt")
    user = UserMessage(content="hi")
    assert convert_to_llm([system, user]) == [user]


async def test_a_pi16_session_builds_a_context_with_them_in_place() -> None:
    store = await SessionStore.open(PI16, read_only=True)
    context = store.build_context()
    assert [m.role for m in context.messages] == [
        "system",
        "user",
        "assistant",
        "system",
        "user",
        "assistant",
    ]
    assert [m.role for m in convert_to_llm(context.messages)] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert store.damage_notice() is None
