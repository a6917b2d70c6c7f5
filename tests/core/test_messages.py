"""Coding-agent message roles and convert_to_llm: pi's exact texts (PI_SPEC §4)."""

from __future__ import annotations

from typing import Any

import pytest

from pitui.agent.messages import OpaqueMessage, parse_agent_message
from pitui.ai.types import ImageContent, TextContent, UserMessage
from pitui.core.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    bash_execution_to_text,
    convert_to_llm,
    iso_to_ms,
)


def _text(message: Any) -> str:
    assert isinstance(message, UserMessage)
    assert isinstance(message.content, list)
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_bash_text_matches_the_spec_example() -> None:
    message = BashExecutionMessage(command="ls", output="a\nb", exit_code=2, timestamp=5)
    assert bash_execution_to_text(message) == (
        "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2"
    )


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"output": "", "exit_code": 0}, "Ran `x`\n(no output)"),
        ({"output": "o", "exit_code": None}, "Ran `x`\n```\no\n```"),
        (
            {"output": "", "cancelled": True, "exit_code": 1},
            "Ran `x`\n(no output)\n\n(command cancelled)",
        ),
        (
            {"output": "o", "truncated": True, "full_output_path": "/t/f"},
            "Ran `x`\n```\no\n```\n\n[Output truncated. Full output: /t/f]",
        ),
        ({"output": "o", "truncated": True}, "Ran `x`\n```\no\n```"),
    ],
)
def test_bash_text_variants(fields: dict[str, Any], expected: str) -> None:
    assert bash_execution_to_text(BashExecutionMessage(command="x", **fields)) == expected


def test_summaries_have_pis_exact_tags() -> None:
    branch = BranchSummaryMessage(summary="S", from_id="abc", timestamp=1)
    compaction = CompactionSummaryMessage(summary="S", tokens_before=9, timestamp=2)
    branch_llm, compaction_llm = convert_to_llm([branch, compaction])
    assert _text(branch_llm) == (
        "The following is a summary of a branch that this conversation came back from:"
        "\n\n<summary>\nS</summary>"
    )
    assert _text(compaction_llm) == (
        "The conversation history before this point was compacted into the following summary:"
        "\n\n<summary>\nS\n</summary>"
    )
    assert (branch_llm.timestamp, compaction_llm.timestamp) == (1, 2)


def test_custom_content_string_and_blocks_and_excluded() -> None:
    image = ImageContent(data="AAA", mime_type="image/png")
    shown = CustomMessage(custom_type="t", content="hi", display=False, timestamp=3)
    blocks = CustomMessage(custom_type="t", content=[TextContent(text="a"), image], timestamp=4)
    hidden = CustomMessage(custom_type="t", content="x", exclude_from_context=True)
    out = convert_to_llm([shown, blocks, hidden])
    assert [m.to_json_dict() for m in out] == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 3},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AAA", "mimeType": "image/png"},
            ],
            "timestamp": 4,
        },
    ]


def test_order_kept_protocol_passed_through_and_unknown_and_excluded_dropped() -> None:
    user = UserMessage(content="q", timestamp=1)
    bang = BashExecutionMessage(command="ls", exclude_from_context=True, timestamp=2)
    odd = parse_agent_message({"role": "somethingElse", "timestamp": 3, "x": 1})
    bash = BashExecutionMessage(command="pwd", output="/", exit_code=0, timestamp=4)
    assert isinstance(odd, OpaqueMessage)
    out = convert_to_llm([user, bang, odd, bash])
    assert out[0] is user
    assert [m.timestamp for m in out] == [1, 4]


@pytest.mark.parametrize(
    "data",
    [
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1,
        },
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "",
            "cancelled": True,
            "truncated": False,
            "timestamp": 1,
            "excludeFromContext": True,
        },
        {"role": "custom", "customType": "x", "content": "c", "display": True, "timestamp": 2},
        {
            "role": "custom",
            "customType": "x",
            "content": [{"type": "text", "text": "c"}],
            "display": False,
            "details": {"k": [1]},
            "timestamp": 2,
            "extra": "kept",
        },
        {"role": "branchSummary", "summary": "s", "fromId": "ab12cd34", "timestamp": 3},
        {"role": "compactionSummary", "summary": "s", "tokensBefore": 10, "timestamp": 4},
    ],
)
def test_registered_roles_round_trip(data: dict[str, Any]) -> None:
    message = parse_agent_message(data)
    assert type(message).__name__ != "OpaqueMessage"
    assert message.to_json_dict() == data


def test_built_messages_omit_unset_optionals() -> None:
    data = BashExecutionMessage(command="ls", timestamp=1).to_json_dict()
    assert "exitCode" not in data and "excludeFromContext" not in data
    assert data["cancelled"] is False


def test_iso_to_ms_matches_javascript() -> None:
    assert iso_to_ms("2025-12-08T22:41:09.394Z") == 1765233669394
    assert iso_to_ms("garbage") == 0
