"""transform_messages, the id normalisers and surrogate stripping (PI_SPEC §2.1, §1.7)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ai.transform import (
    AZURE_TOOL_CALL_PROVIDERS,
    NO_RESULT_TEXT,
    normalize_id_anthropic,
    normalize_id_openai_completions,
    normalize_id_openai_responses,
    strip_unpaired_surrogates,
    transform_messages,
)
from pitui.ai.types import (
    AssistantContent,
    AssistantMessage,
    Message,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

CLAUDE = Model(id="claude-sonnet-4", api="anthropic-messages", provider="anthropic")
GPT = Model(id="gpt-5", api="openai-responses", provider="openai")
CHAT = Model(id="gpt-4o", api="openai-completions", provider="openai")

# A Responses-style id: call id, "|", a long item id with characters Anthropic rejects.
LONG_ID = "call_abc123|" + "fc_" + "aZ+/=" * 90


def assistant(
    *blocks: AssistantContent,
    source: Model = CLAUDE,
    stop_reason: StopReason = "stop",
) -> AssistantMessage:
    return AssistantMessage(
        content=list(blocks),
        api=source.api,
        provider=source.provider,
        model=source.id,
        stop_reason=stop_reason,
    )


def result(call_id: str, name: str = "bash", text: str = "ok") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])


def dumps(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.to_json_dict() for m in messages]


# --------------------------------------------------------------------------- pass 1: blocks


def test_same_model_keeps_every_block_unchanged() -> None:
    blocks: list[AssistantContent] = [
        ThinkingContent(thinking="", thinking_signature="enc"),  # encrypted, empty text
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="x", redacted=True),
        ThinkingContent(thinking="plain reasoning"),
        TextContent(text="hi", text_signature='{"v":1,"id":"msg_1"}'),
        ToolCall(id="call|item", name="bash", arguments={"c": 1}, thought_signature="sig"),
    ]
    message = assistant(*blocks)
    [out] = transform_messages([message], CLAUDE, normalize_id_anthropic)
    assert isinstance(out, AssistantMessage)
    assert out.content == blocks
    assert out.to_json_dict() == message.to_json_dict()


def test_same_model_drops_blank_unsigned_thinking() -> None:
    message = assistant(ThinkingContent(thinking=" \n"), TextContent(text="a"))
    [out] = transform_messages([message], CLAUDE)
    assert isinstance(out, AssistantMessage)
    assert out.content == [TextContent(text="a")]


def test_other_model_turns_thinking_into_plain_text_without_tags() -> None:
    message = assistant(
        ThinkingContent(thinking="Let me think...", thinking_signature="reasoning_content"),
        ThinkingContent(thinking="unsigned"),
        ThinkingContent(thinking="   ", thinking_signature="sig"),  # blank → dropped
        ThinkingContent(thinking="secret", thinking_signature="d", redacted=True),  # dropped
        TextContent(text="Hi there!", text_signature="msg_9"),
        source=CHAT,
    )
    [out] = transform_messages([UserMessage(content="hello"), message], CLAUDE)[1:]
    assert isinstance(out, AssistantMessage)
    assert [b.to_json_dict() for b in out.content] == [
        {"type": "text", "text": "Let me think..."},
        {"type": "text", "text": "unsigned"},
        {"type": "text", "text": "Hi there!"},  # text signature dropped
    ]


def test_other_model_tool_call_loses_thought_signature_and_gets_a_normalised_id() -> None:
    call = ToolCall(id=LONG_ID, name="bash", arguments={"command": "ls"}, thought_signature="s")
    messages: list[Message] = [
        UserMessage(content="run"),
        assistant(call, source=GPT, stop_reason="toolUse"),
        result(LONG_ID),
    ]
    out = transform_messages(messages, CLAUDE, normalize_id_anthropic)
    new_call = out[1]
    assert isinstance(new_call, AssistantMessage)
    [block] = new_call.content
    assert isinstance(block, ToolCall)
    expected_id = normalize_id_anthropic(LONG_ID)
    assert block.id == expected_id
    assert len(expected_id) == 64
    assert "thoughtSignature" not in block.to_json_dict()
    assert block.arguments == {"command": "ls"}
    tool_result = out[2]
    assert isinstance(tool_result, ToolResultMessage)
    assert tool_result.tool_call_id == expected_id


def test_thought_signature_removed_even_without_normaliser() -> None:
    call = ToolCall(id="call_123", name="bash", thought_signature='{"type":"reasoning.encrypted"}')
    [out] = transform_messages([assistant(call, source=GPT)], CLAUDE)
    assert isinstance(out, AssistantMessage)
    assert out.content[0].to_json_dict() == {
        "type": "toolCall",
        "id": "call_123",
        "name": "bash",
        "arguments": {},
    }


def test_same_model_tool_ids_are_not_normalised() -> None:
    call = ToolCall(id=LONG_ID, name="bash")
    out = transform_messages(
        [assistant(call, source=GPT), result(LONG_ID)], GPT, normalize_id_anthropic
    )
    assert isinstance(out[0], AssistantMessage)
    assert out[0].tool_calls()[0].id == LONG_ID
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].tool_call_id == LONG_ID


def test_result_before_its_call_is_not_remapped() -> None:
    messages: list[Message] = [result("a|b"), assistant(ToolCall(id="a|b", name="x"), source=GPT)]
    out = transform_messages(messages, CLAUDE, normalize_id_anthropic)
    assert isinstance(out[0], ToolResultMessage)
    assert out[0].tool_call_id == "a|b"


def test_user_messages_pass_through_as_the_same_object() -> None:
    user = UserMessage(content=[TextContent(text="x\ud83d")])
    assert transform_messages([user], CLAUDE)[0] is user


def test_inputs_are_never_mutated() -> None:
    messages: list[Message] = [
        UserMessage(content="go"),
        assistant(
            ThinkingContent(thinking="t", thinking_signature="s"),
            TextContent(text="x", text_signature="sig"),
            ToolCall(id=LONG_ID, name="bash", thought_signature="ts"),
            source=GPT,
        ),
        result(LONG_ID),
        UserMessage(content="next"),
        assistant(TextContent(text="partial"), stop_reason="aborted"),
    ]
    before = dumps(messages)
    transform_messages(messages, CLAUDE, normalize_id_anthropic)
    assert dumps(messages) == before


# --------------------------------------------------------------------------- pass 2: ordering


def test_unanswered_call_followed_by_user_gets_synthetic_result() -> None:
    messages: list[Message] = [
        UserMessage(content="a"),
        assistant(ToolCall(id="t1", name="read"), ToolCall(id="t2", name="bash")),
        result("t2"),
        UserMessage(content="b"),
    ]
    out = transform_messages(messages, CLAUDE)
    assert [m.role for m in out] == ["user", "assistant", "toolResult", "toolResult", "user"]
    synthetic = out[3]
    assert isinstance(synthetic, ToolResultMessage)
    json_dict = synthetic.to_json_dict()
    assert isinstance(json_dict.pop("timestamp"), int)
    assert json_dict == {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "read",
        "content": [{"type": "text", "text": NO_RESULT_TEXT}],
        "isError": True,
    }


def test_unanswered_call_followed_by_assistant_gets_synthetic_result() -> None:
    messages: list[Message] = [
        assistant(ToolCall(id="t1", name="read")),
        assistant(TextContent(text="later")),
    ]
    out = transform_messages(messages, CLAUDE)
    assert [m.role for m in out] == ["assistant", "toolResult", "assistant"]


def test_trailing_orphans_are_not_repaired() -> None:
    messages: list[Message] = [UserMessage(content="a"), assistant(ToolCall(id="t1", name="x"))]
    assert [m.role for m in transform_messages(messages, CLAUDE)] == ["user", "assistant"]


@pytest.mark.parametrize("stop_reason", ["error", "aborted"])
def test_failed_assistant_messages_are_dropped_after_the_flush(stop_reason: StopReason) -> None:
    messages: list[Message] = [
        assistant(ToolCall(id="t1", name="x")),
        assistant(ToolCall(id="t2", name="y"), stop_reason=stop_reason),
        UserMessage(content="again"),
    ]
    out = transform_messages(messages, CLAUDE)
    assert [m.role for m in out] == ["assistant", "toolResult", "user"]
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].tool_call_id == "t1"  # t2's failed message is gone and needs no result


def test_synthetic_result_uses_the_normalised_id() -> None:
    messages: list[Message] = [
        assistant(ToolCall(id=LONG_ID, name="x"), source=GPT),
        UserMessage(content="b"),
    ]
    out = transform_messages(messages, CLAUDE, normalize_id_anthropic)
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].tool_call_id == normalize_id_anthropic(LONG_ID)


def test_completions_reasoning_replayed_to_anthropic_end_to_end() -> None:
    """Edge case 1/2: copilot gpt → claude: thinking becomes text, signatures go."""
    messages: list[Message] = [
        UserMessage(content="hello"),
        assistant(
            ThinkingContent(thinking="Let me think", thinking_signature="reasoning_content"),
            TextContent(text="Hi"),
            ToolCall(id="call_1", name="bash", arguments={}, thought_signature="x"),
            source=CHAT,
            stop_reason="toolUse",
        ),
        result("call_1"),
    ]
    out = transform_messages(messages, CLAUDE, normalize_id_anthropic)
    assert isinstance(out[1], AssistantMessage)
    assert [b.type for b in out[1].content] == ["text", "text", "toolCall"]
    assert out[1].stop_reason == "toolUse"


# --------------------------------------------------------------------------- normalisers


def test_anthropic_normaliser() -> None:
    assert normalize_id_anthropic("toolu_01-AbC") == "toolu_01-AbC"
    assert normalize_id_anthropic("call|fc+/=x") == "call_fc___x"
    assert normalize_id_anthropic("a" * 70) == "a" * 64
    # JS replaces per UTF-16 unit: an astral character becomes two underscores.
    assert normalize_id_anthropic("a🙈b") == "a__b"


def test_completions_normaliser() -> None:
    other = Model(id="m", api="openai-completions", provider="groq")
    assert normalize_id_openai_completions("call_9|" + "x" * 400, other) == "call_9"
    assert normalize_id_openai_completions("c.a.l.l|item", other) == "c_a_l_l"
    assert normalize_id_openai_completions("k" * 50 + "|i", other) == "k" * 40
    assert normalize_id_openai_completions("y" * 50, other) == "y" * 50
    assert normalize_id_openai_completions("y" * 50, CHAT) == "y" * 40
    assert normalize_id_openai_completions("y" * 40, CHAT) == "y" * 40
    assert normalize_id_openai_completions("odd id!", CHAT) == "odd id!"


def test_responses_normaliser() -> None:
    assert normalize_id_openai_responses("call_1|fc_item", GPT) == "call_1|fc_item"
    assert normalize_id_openai_responses("call 1|item/2", GPT) == "call_1|fc_item_2"
    assert normalize_id_openai_responses("c|fcx", GPT) == "c|fcx"
    assert normalize_id_openai_responses("call__|item__", GPT) == "call|fc_item"
    assert normalize_id_openai_responses("a|b|c", GPT) == "a|fc_b"
    assert normalize_id_openai_responses("no-pipe!", GPT) == "no-pipe!"
    long_id = normalize_id_openai_responses(LONG_ID, GPT)
    call, item = long_id.split("|")
    assert call == "call_abc123"
    assert item.startswith("fc_aZ___") and len(item) <= 64 and not item.endswith("_")
    # Truncation first, then trailing underscores go.
    assert normalize_id_openai_responses("c|fc" + "a" * 61 + "_+b", GPT) == "c|fc" + "a" * 61


@pytest.mark.parametrize("provider", ["openai", "openai-codex", "opencode"])
def test_responses_normaliser_applies_to_openai_targets(provider: str) -> None:
    target = Model(id="m", api="openai-responses", provider=provider)
    assert normalize_id_openai_responses("a b|c", target) == "a_b|fc_c"


def test_responses_normaliser_leaves_other_targets_alone() -> None:
    copilot = Model(id="gpt-5", api="openai-responses", provider="github-copilot")
    azure = Model(id="gpt-5", api="azure-openai-responses", provider="azure-openai-responses")
    assert normalize_id_openai_responses("a b|c", copilot) == "a b|c"
    assert normalize_id_openai_responses("a b|c", azure) == "a b|c"
    assert (
        normalize_id_openai_responses("a b|c", azure, allowed_providers=AZURE_TOOL_CALL_PROVIDERS)
        == "a_b|fc_c"
    )


def test_normalisers_plug_into_transform_messages() -> None:
    messages: list[Message] = [
        assistant(ToolCall(id="call 1|item", name="x"), source=CLAUDE),
        result("call 1|item"),
    ]
    out = transform_messages(messages, GPT, normalize_id_openai_responses)
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].tool_call_id == "call_1|fc_item"
    out = transform_messages(messages, CHAT, normalize_id_openai_completions)
    assert isinstance(out[1], ToolResultMessage)
    assert out[1].tool_call_id == "call_1"


# --------------------------------------------------------------------------- surrogates


def test_strip_unpaired_surrogates() -> None:
    assert strip_unpaired_surrogates("plain") == "plain"
    assert strip_unpaired_surrogates("Hello 🙈 World") == "Hello 🙈 World"
    assert strip_unpaired_surrogates("Text \ud83d here") == "Text  here"
    assert strip_unpaired_surrogates("x\ude48y") == "xy"
    assert strip_unpaired_surrogates("\ude48\ud83d") == ""  # wrong order: both unpaired
    # A pair held as two code points is joined into the character it encodes.
    assert strip_unpaired_surrogates("a\ud83d\ude48b") == "a🙈b"


def test_strip_unpaired_surrogates_on_json_escaped_tool_output() -> None:
    """Edge case 9: a lone \\ud83d from a JSON escape is removed; emoji survive."""
    text = json.loads('"ok \\ud83d then \\ud83d\\ude48 end"')
    cleaned = strip_unpaired_surrogates(text)
    assert cleaned == "ok  then 🙈 end"
    cleaned.encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x1F64F)))
def test_stripped_text_always_encodes_as_utf8(text: str) -> None:
    cleaned = strip_unpaired_surrogates(text)
    cleaned.encode("utf-8")
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert cleaned is text or cleaned == text
