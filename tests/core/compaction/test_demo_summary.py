"""The offline demo model summarises for real: a known transcript through pi's prompts
(compaction, update, turn prefix, branch, custom instructions) gives a fixed extractive
summary in the requested skeleton."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitui.agent.messages import AgentMessage
from pitui.ai.models import DEMO_MODEL
from pitui.ai.options import StreamOptions
from pitui.ai.providers import demo_transcript
from pitui.ai.providers.demo_script import plan_reply
from pitui.ai.stream import complete
from pitui.ai.types import (
    AssistantMessage,
    Context,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.compaction import prompts
from pitui.core.compaction.branch import branch_prompt
from pitui.core.compaction.serialize import serialize_agent_messages
from pitui.core.compaction.summarize import history_prompt, summary_context, turn_prefix_prompt
from pitui.core.messages import CompactionSummaryMessage


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _assistant(*blocks: TextContent | ToolCall) -> AssistantMessage:
    return AssistantMessage(api="demo", provider="demo", model="demo", content=list(blocks))


def _result(call_id: str, name: str, text: str, error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)], is_error=error
    )


TRANSCRIPT: list[AgentMessage] = [
    UserMessage(content="Fix the greeting in src/app.py. Never use tabs."),
    _assistant(
        TextContent(text="Let me look."),
        ToolCall(id="c1", name="read", arguments={"path": "src/app.py"}),
    ),
    _result("c1", "read", 'print("helo")\n'),
    _assistant(
        ToolCall(
            id="c2",
            name="edit",
            arguments={"path": "src/app.py", "oldText": "helo", "newText": "hello"},
        )
    ),
    _result("c2", "edit", "Successfully replaced text in src/app.py."),
    UserMessage(content="Now run the tests"),
    _assistant(ToolCall(id="c3", name="bash", arguments={"command": "pytest -q"})),
    _result("c3", "bash", "1 failed\n\nCommand exited with code 1", error=True),
    _assistant(TextContent(text="One test fails: test_greeting expects a comma.")),
]

COMPACTION = """\
## Goal
- Fix the greeting in src/app.py. Never use tabs.
- Now run the tests

## Constraints & Preferences
- Never use tabs.

## Progress
### Done
- [x] Read `src/app.py`
- [x] Edited `src/app.py`

### In Progress
- [ ] Now run the tests

### Blocked
- `bash` `pytest -q` failed: 1 failed

## Key Decisions
- **Changed `src/app.py`**: asked for in the conversation

## Next Steps
1. Continue with: Now run the tests
2. Resolve the blocked items above

## Critical Context
- Files read: `src/app.py`
- Files modified: `src/app.py`
- Last reply: One test fails: test_greeting expects a comma."""


def _reply(prompt: str) -> str:
    return plan_reply(summary_context(prompt)).text


def test_the_markers_are_pi_prompt_texts() -> None:
    """The ai layer cannot import the core's prompts: its markers are pinned here."""
    assert demo_transcript.SYSTEM_MARKER in prompts.SUMMARIZATION_SYSTEM_PROMPT
    assert demo_transcript.TURN_PREFIX_MARKER in prompts.TURN_PREFIX_SUMMARIZATION_PROMPT
    assert demo_transcript.BRANCH_MARKER in prompts.BRANCH_SUMMARY_PROMPT
    for text in (prompts.SUMMARIZATION_PROMPT, prompts.UPDATE_SUMMARIZATION_PROMPT):
        assert demo_transcript.CRITICAL_CONTEXT_MARKER in text
    others = (prompts.BRANCH_SUMMARY_PROMPT, prompts.TURN_PREFIX_SUMMARIZATION_PROMPT)
    assert not any(demo_transcript.CRITICAL_CONTEXT_MARKER in text for text in others)
    assert demo_transcript.TURN_PREFIX_MARKER not in prompts.BRANCH_SUMMARY_PROMPT
    assert history_prompt("", None, "x").endswith(demo_transcript.FOCUS_MARKER + "x")


def test_a_compaction_of_a_known_transcript() -> None:
    prompt = history_prompt(serialize_agent_messages(TRANSCRIPT), None, None)
    assert _reply(prompt) == COMPACTION


async def test_the_stream_carries_the_summary_as_its_text() -> None:
    prompt = history_prompt(serialize_agent_messages(TRANSCRIPT), None, None)
    reply = await complete(DEMO_MODEL, summary_context(prompt), StreamOptions())
    assert reply.stop_reason == "stop" and reply.text() == COMPACTION


def test_custom_instructions_are_acknowledged() -> None:
    prompt = history_prompt(serialize_agent_messages(TRANSCRIPT), None, "the failing test")
    text = _reply(prompt)
    assert "- Focus asked for in this summary: the failing test" in text
    assert text.replace("\n- Focus asked for in this summary: the failing test", "") == COMPACTION


def test_an_update_keeps_the_previous_summary() -> None:
    later: list[AgentMessage] = [
        UserMessage(content="Add the comma"),
        _assistant(
            ToolCall(id="c4", name="write", arguments={"path": "src/app.py", "content": ""})
        ),
        _result("c4", "write", "Successfully wrote 20 bytes to src/app.py"),
    ]
    prompt = history_prompt(serialize_agent_messages(later), COMPACTION, None)
    text = _reply(prompt)
    assert text.startswith(
        "## Goal\n- Fix the greeting in src/app.py. Never use tabs.\n- Now run the tests\n"
        "- Add the comma\n\n## Constraints & Preferences\n- Never use tabs.\n"
    )
    assert "- [x] Read `src/app.py`\n- [x] Edited `src/app.py`\n- [x] Wrote `src/app.py`" in text
    assert "### In Progress\n- [ ] Add the comma" in text


def test_a_summary_in_the_conversation_is_context_not_a_request() -> None:
    carried: list[AgentMessage] = [
        CompactionSummaryMessage(summary=COMPACTION, tokens_before=1000, timestamp=1),
        UserMessage(content="Add the comma"),
    ]
    text = _reply(history_prompt(serialize_agent_messages(carried), None, None))
    assert "- Now run the tests\n- Add the comma\n" in text
    assert "Continued from an earlier summary" in text
    assert "The conversation history before" not in text


def test_a_turn_prefix_has_pi_sections() -> None:
    text = _reply(turn_prefix_prompt(serialize_agent_messages(TRANSCRIPT[:5])))
    assert text == (
        "## Original Request\nFix the greeting in src/app.py. Never use tabs.\n\n"
        "## Early Progress\n- Read `src/app.py`\n- Edited `src/app.py`\n\n"
        "## Context for Suffix\n- Files read: `src/app.py`\n- Files modified: `src/app.py`\n"
        "- Last reply: Let me look."
    )


@pytest.mark.parametrize(("custom", "replace"), [(None, False), ("tests", False), ("tests", True)])
def test_a_branch_summary_has_no_critical_context(custom: str | None, replace: bool) -> None:
    text = _reply(branch_prompt(serialize_agent_messages(TRANSCRIPT), custom, replace))
    assert text.startswith("## Goal\n- Fix the greeting in src/app.py.")
    assert "## Next Steps\n1. Continue with: Now run the tests" in text
    assert "## Critical Context" not in text
    assert ("Focus asked for in this summary: tests" in text) == (custom is not None)


def test_ordinary_conversations_are_not_summarised() -> None:
    prompt = history_prompt(serialize_agent_messages(TRANSCRIPT), None, None)
    context = Context(system_prompt="You are helpful.", messages=[UserMessage(content=prompt)])
    assert "## Goal" not in plan_reply(context).text
    assert demo_transcript.recognise(context) is None


def test_tool_call_text_from_a_model_never_breaks_parsing() -> None:
    calls = demo_transcript.parse_calls('read(path="a, b)"); bash(command=oops); ls()')
    assert calls == [demo_transcript.Call("read", {"path": "a, b)"})]
    assert demo_transcript.parse_calls("") == []
    assert demo_transcript.parse_transcript("[Tool result]: x\n\n[User]: ") is not None


@given(st.text(alphabet=st.sampled_from('[]():;,=" \nUserAsitnlcopx<>/{}'), max_size=200))
def test_any_conversation_text_gives_a_summary(text: str) -> None:
    prompt = f"<conversation>\n{text}\n</conversation>\n\n{prompts.SUMMARIZATION_PROMPT}"
    assert _reply(prompt).startswith("## Goal\n")
