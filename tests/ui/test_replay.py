"""The one-pass view of a finished transcript equals the reducer's, message by message."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.agent.events import MessageEndEvent, MessageStartEvent
from pitui.agent.messages import AgentMessage, OpaqueMessage
from pitui.ai.types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pitui.core.messages import BashExecutionMessage, CustomMessage
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.reducer import reduce
from pitui.ui.view.replay import state_from_messages
from pitui.ui.view.replay_memo import ReplayMemo
from pitui.ui.view.replay_state import Replay
from pitui.ui.view.state import NoticeItem, ToolCardItem

TEXTS = st.sampled_from(["", " ", "hi", "## Title\n\nbody", "a\nb"])
CALL_IDS = st.sampled_from(["c1", "c2", "c3"])  # few ids: repeated and unanswered calls
STOPS: list[StopReason] = ["stop", "toolUse", "length", "aborted", "error"]


def _block(kind: str, text: str, call_id: str) -> AssistantContent:
    if kind == "text":
        return TextContent(text=text)
    if kind == "thinking":
        return ThinkingContent(thinking=text)
    return ToolCall(id=call_id, name="bash", arguments={"command": text})


@st.composite
def assistant(draw: st.DrawFn) -> AssistantMessage:
    blocks = draw(
        st.lists(
            st.builds(_block, st.sampled_from(["text", "thinking", "call"]), TEXTS, CALL_IDS),
            max_size=4,
        )
    )
    stop = draw(st.sampled_from(STOPS))
    return AssistantMessage(
        api="demo",
        provider="demo",
        model="m",
        content=blocks,
        stop_reason=stop,
        error_message=draw(st.sampled_from([None, "boom"])) if stop == "error" else None,
        usage=Usage(input=draw(st.integers(0, 9)), output=draw(st.integers(0, 9))),
        timestamp=draw(st.integers(1, 99)),
    )


@st.composite
def user(draw: st.DrawFn) -> UserMessage:
    if draw(st.booleans()):
        return UserMessage(content=draw(TEXTS))
    image = ImageContent(data="AA==", mime_type="image/png")
    return UserMessage(content=[TextContent(text=draw(TEXTS)), image])


@st.composite
def tool_result(draw: st.DrawFn) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=draw(CALL_IDS),
        tool_name="bash",
        content=[TextContent(text=draw(TEXTS))],
        is_error=draw(st.booleans()),
        details=draw(st.sampled_from([None, {"exit": 1}])),
    )


CUSTOM: list[AgentMessage] = [
    BashExecutionMessage(command="ls", output="a", exit_code=0),
    CustomMessage(custom_type="note", content="shown", display=True),
    CustomMessage(custom_type="note", content="hidden", display=False),
    OpaqueMessage.load({"role": "compactionSummary", "summary": "s", "tokensBefore": 10}),
    OpaqueMessage.load({"role": "branchSummary", "summary": "b", "fromId": "x"}),
    OpaqueMessage.load({"role": "somethingElse"}),
]
MESSAGES = st.lists(
    st.one_of(assistant(), user(), tool_result(), st.sampled_from(CUSTOM)), max_size=12
)


def _by_reducer(messages: list[AgentMessage]) -> ChatState:
    state = ChatState()
    for message in messages:
        state = reduce(state, MessageStartEvent(message=message))
        state = reduce(state, MessageEndEvent(message=message))
    return state


def _fields(state: ChatState) -> dict[str, Any]:
    fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
    fields["items"] = list(state.items)
    fields["index"] = dict(state.index)
    return fields


@settings(max_examples=300, deadline=None)
@given(MESSAGES)
def test_replay_equals_the_reducer(messages: list[AgentMessage]) -> None:
    assert _fields(state_from_messages(messages)) == _fields(_by_reducer(messages))


def test_failed_reply_closes_open_cards() -> None:
    call = AssistantMessage(
        api="demo", provider="demo", model="m", stop_reason="toolUse",
        content=[ToolCall(id="c1", name="bash", arguments={"command": "ls"})],
    )  # fmt: skip
    failed = AssistantMessage(
        api="demo", provider="demo", model="m", stop_reason="error", error_message="boom"
    )
    state = state_from_messages([call, failed])
    card = state.tool_card("c1")
    assert isinstance(card, ToolCardItem) and card.state == "error" and card.output == "boom"
    notice = state.items[-1]
    assert isinstance(notice, NoticeItem) and notice.text == "Error: boom"
    assert state.open_tools == frozenset() and state.streaming_id is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 12), MESSAGES), min_size=1, max_size=5
    ),  # (messages kept, messages after them): one branch after another
    MESSAGES,
)
def test_a_memo_replay_equals_a_full_replay(
    switches: list[tuple[int, list[AgentMessage]]], first: list[AgentMessage]
) -> None:
    """Transcripts that share their start with the one before (branches of one tree),
    replayed through a memo, are each what replaying them alone makes: items, index,
    ids, usage, open cards. Repeated and unanswered call ids make some take the whole
    replay again."""
    memo = ReplayMemo()
    transcript = first
    assert _fields(state_from_messages(transcript, memo)) == _fields(state_from_messages(first))
    for kept, after in switches:
        transcript = [*transcript[:kept], *after]
        memo_state = state_from_messages(transcript, memo)
        assert _fields(memo_state) == _fields(state_from_messages(transcript))


def test_a_sibling_switch_replays_only_what_follows_the_branch_point() -> None:
    """Two branches sharing 200 rounds: switching replays the other branch's messages,
    not the shared ones (the same message objects); switching back replays next to
    nothing (the memo keeps both)."""
    rounds: list[AgentMessage] = []
    for k in range(200):
        rounds.append(UserMessage(content=f"question {k}"))
        rounds.append(
            AssistantMessage(
                api="demo", provider="demo", model="m", content=[TextContent(text=f"a{k}")]
            )
        )
    left = [*rounds, UserMessage(content="left"), *rounds[1:4]]
    right = [*rounds, UserMessage(content="right")]
    memo = ReplayMemo()
    state_from_messages(left, memo)
    fed: list[int] = []
    user = Replay.user

    def counted(self: Replay, text: str, images: int) -> None:
        fed.append(1)
        user(self, text, images)

    Replay.user = counted  # type: ignore[method-assign]
    try:
        state = state_from_messages(right, memo)
        again = state_from_messages(left, memo)
    finally:
        Replay.user = user  # type: ignore[method-assign]
    # "right"; then back on "left" (kept too): only its last question, after its last mark
    assert len(fed) == 1 + 1
    assert _fields(state) == _fields(state_from_messages(right))
    assert _fields(again) == _fields(state_from_messages(left))
