"""The reducer, event by event, without Textual."""

from __future__ import annotations

from pitui.agent.events import AgentEndEvent, AgentEvent
from pitui.agent.messages import OpaqueMessage
from pitui.ai.types import AssistantMessage, TextContent
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.events import (
    ApprovalRequested,
    ApprovalResolved,
    BashFinished,
    BashOutput,
    BashStarted,
    ClearQueue,
    QueueMessage,
    ToggleAllThinking,
    ToggleAllTools,
    ToggleItem,
)
from pitui.ui.view.pvector import PVector, changed_positions
from pitui.ui.view.reducer import reduce, reduce_all, state_from_messages
from pitui.ui.view.state import (
    AssistantItem,
    BashItem,
    CompactionItem,
    CustomItem,
    NoticeItem,
    ThinkingItem,
    ToolCardItem,
    UserItem,
)
from tests.ui.script import Script, demo_conversation, usage


def states(events: list[AgentEvent]) -> list[ChatState]:
    out, state = [], ChatState()
    for event in events:
        state = reduce(state, event)
        out.append(state)
    return out


def test_plain_reply_streams_into_one_item() -> None:
    s = Script().start().user("hi").assistant().text("Hel", "lo", " there").end()
    events = s.agent_end().events
    seen = states(events)
    assert seen[0].busy
    # After every text event there is exactly one assistant item, growing in place.
    streaming_states = [st for st in seen if st.streaming_id is not None]
    assert streaming_states
    texts: list[str] = []
    for st in streaming_states:
        assistants = [i for i in st.items if isinstance(i, AssistantItem)]
        assert len(assistants) <= 1
        texts.extend(a.text for a in assistants)
    assert texts[:4] == ["", "Hel", "Hello", "Hello there"]
    final = seen[-1]
    assert [type(i) for i in final.items] == [UserItem, AssistantItem]
    reply = final.items[1]
    assert isinstance(reply, AssistantItem)
    assert reply.id == "m2.0" and reply.text == "Hello there" and not reply.streaming
    assert not final.busy and final.streaming_id is None


def test_delta_touches_only_the_streaming_item() -> None:
    s = Script().start()
    for n in range(70):  # enough history to span several chunks
        s.user(f"q{n}").assistant().text(f"a{n}").end()
    s.user("last").assistant().text("x", "y")
    seen = states(s.events)
    before, after = seen[-2], seen[-1]
    assert changed_positions(before.items, after.items) == [len(after.items) - 1]
    assert before.index is after.index  # no index copy per delta
    assert before.items._chunks[0] is after.items._chunks[0]


def test_thinking_block_and_toggle_all() -> None:
    s = Script().start().user("q").assistant().thinking("hmm", " ok").text("done").end()
    state = reduce_all(ChatState(), s.agent_end().events)
    thinking = state.get("m2.0")
    assert isinstance(thinking, ThinkingItem)
    assert thinking.text == "hmm ok" and not thinking.expanded and not thinking.streaming
    state = reduce(state, ToggleAllThinking())
    thinking = state.get("m2.0")
    assert isinstance(thinking, ThinkingItem) and thinking.expanded and state.thinking_expanded
    state = reduce(state, ToggleItem("m2.0"))
    thinking = state.get("m2.0")
    assert isinstance(thinking, ThinkingItem) and not thinking.expanded


def test_tool_card_created_when_call_streams_and_args_update_live() -> None:
    s = Script().start().user("edit").assistant()
    s.tool_call("c1", "edit", {"path": "a.py", "oldText": "x", "newText": "y"}, end=False)
    seen = states(s.events)
    created = [st for st in seen if st.tool_card("c1") is not None]
    first = created[0].tool_card("c1")
    assert first is not None and first.state == "pending" and first.args == {}
    latest = created[-1].tool_card("c1")
    assert latest is not None and latest.args == {"path": "a.py", "oldText": "x", "newText": "y"}
    assert not latest.args_complete
    assert len(created[-1].tool_cards()) == 1


def test_tool_lifecycle_one_card_per_call() -> None:
    events = demo_conversation()
    seen = states(events)
    final = seen[-1]
    cards = final.tool_cards()
    assert [c.tool_call_id for c in cards] == ["call_1", "call_2", "call_3"]
    assert [c.state for c in cards] == ["success", "success", "error"]
    assert cards[1].details == {"diff": cards[1].details["diff"], "firstChangedLine": 2}
    assert cards[0].message_id == "m2" and cards[2].message_id == "m3"
    # The running state with partial output was visible in between.
    running = [st.tool_card("call_3") for st in seen]
    assert any(c is not None and c.state == "running" and c.output == "> test\n" for c in running)
    assert final.open_tools == frozenset()


def test_usage_totals_and_context() -> None:
    final = reduce_all(ChatState(), demo_conversation())
    assert final.usage.input == 4700 and final.usage.output == 144
    assert final.usage.cache_read == 11400
    assert abs(final.usage.cost - 0.009) < 1e-9
    assert final.usage.context_tokens == 2000 + 44 + 3800


def test_abort_mid_stream_without_tools() -> None:
    s = Script().start().user("q").assistant().text("partial", end=False)
    s.end("aborted", "Request was aborted").agent_end()
    final = reduce_all(ChatState(), s.events)
    assert [type(i) for i in final.items] == [UserItem, AssistantItem, NoticeItem]
    notice = final.items[2]
    assert isinstance(notice, NoticeItem)
    assert notice.text == "Operation aborted" and notice.level == "error"
    reply = final.items[1]
    assert isinstance(reply, AssistantItem) and not reply.streaming and reply.text == "partial"


def test_abort_with_streamed_tool_call_closes_card() -> None:
    s = Script().start().user("q").assistant().tool_call("c1", "bash", {"command": "ls"}, end=False)
    s.end("aborted", "Request was aborted").agent_end()
    final = reduce_all(ChatState(), s.events)
    card = final.tool_card("c1")
    assert card is not None and card.state == "error" and card.output == "Operation aborted"
    assert not any(isinstance(i, NoticeItem) for i in final.items)


def test_error_reply_wording() -> None:
    s = Script().start().user("q").assistant().end("error", "401 invalid x-api-key").agent_end()
    final = reduce_all(ChatState(), s.events)
    notice = final.items[-1]
    assert isinstance(notice, NoticeItem)
    assert notice.text == "Error: 401 invalid x-api-key"
    s2 = Script().start().user("q").assistant().end("error", None).agent_end()
    notice2 = reduce_all(ChatState(), s2.events).items[-1]
    assert isinstance(notice2, NoticeItem) and notice2.text == "Error: Unknown error"


def test_agent_end_closes_cards_left_running() -> None:
    s = Script().start().user("q").assistant().tool_call("c1", "bash", {"command": "sleep 9"})
    s.end("toolUse").tool_start("c1", "bash", {"command": "sleep 9"})
    s.tool_update("c1", "bash", "zzz")
    s.agent_end()
    final = reduce_all(ChatState(), s.events)
    card = final.tool_card("c1")
    assert card is not None and card.state == "error" and card.output == "Operation aborted"
    assert not final.busy


def test_failure_path_agent_end_only() -> None:
    synthetic = AssistantMessage(
        content=[TextContent(text="")],
        api="demo",
        provider="demo",
        model="m",
        stop_reason="error",
        error_message="No API key for anthropic",
        timestamp=42,
    )
    state = reduce(ChatState(), AgentEndEvent(messages=[synthetic]))
    notice = state.items[-1]
    assert isinstance(notice, NoticeItem) and notice.text == "Error: No API key for anthropic"


def test_queue_removed_when_delivered() -> None:
    state = reduce(ChatState(), QueueMessage("also update README"))
    state = reduce(state, QueueMessage("then run tests", "followUp"))
    assert state.steering == ("also update README",)
    state = reduce_all(state, Script().user("also update README").events)
    assert state.steering == () and state.follow_up == ("then run tests",)
    assert reduce(state, ClearQueue()).follow_up == ()


def test_approval_denied_card_stays_denied() -> None:
    s = (
        Script()
        .start()
        .user("q")
        .assistant()
        .tool_call("c1", "write", {"path": "a", "content": "b"})
    )
    s.end("toolUse").tool_start("c1", "write", {"path": "a", "content": "b"})
    state = reduce_all(ChatState(), s.events)
    state = reduce(state, ApprovalRequested("c1", "write", {"path": "a"}))
    assert state.get("approval:c1") is not None
    state = reduce(state, ApprovalResolved("c1", allowed=False, reason="not now"))
    tail = Script().tool_end("c1", "write", "Denied by user: not now", is_error=True)
    state = reduce_all(state, tail.events)
    card = state.tool_card("c1")
    assert card is not None and card.state == "denied"


def test_toggle_all_tools_sets_default_for_new_cards() -> None:
    state = reduce(ChatState(), ToggleAllTools())
    s = Script().start().user("q").assistant().tool_call("c1", "ls", {"path": "."})
    state = reduce_all(state, s.events)
    card = state.tool_card("c1")
    assert isinstance(card, ToolCardItem) and card.expanded


def test_custom_roles_and_resume() -> None:
    compaction = OpaqueMessage.load(
        {"role": "compactionSummary", "summary": "did things", "tokensBefore": 182000}
    )
    hidden = OpaqueMessage.load(
        {"role": "custom", "customType": "x", "content": "n", "display": False}
    )
    shown = OpaqueMessage.load(
        {"role": "custom", "customType": "note", "content": "hi", "display": True}
    )
    bash = OpaqueMessage.load(
        {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 2}
    )
    state = state_from_messages([compaction, hidden, shown, bash])
    kinds = [type(i) for i in state.items]
    assert kinds == [CompactionItem, CustomItem, BashItem]
    item = state.items[0]
    assert isinstance(item, CompactionItem) and item.tokens_before == 182000 and not item.expanded


def test_resume_from_messages_rebuilds_cards() -> None:
    s = Script().start().user("q").assistant().tool_call("c1", "read", {"path": "x"}).end("toolUse")
    s.tool_end("c1", "read", "content").assistant().text("ok").end()
    state = state_from_messages(s.run_messages)
    card = state.tool_card("c1")
    assert card is not None and card.state == "success" and card.output == "content"
    assert [type(i) for i in state.items] == [UserItem, ToolCardItem, AssistantItem]


def test_live_bash() -> None:
    state = reduce(ChatState(), BashStarted("ls -la"))
    state = reduce(state, BashOutput("a\nb"))
    bash = state.get(state.bash_id or "")
    assert isinstance(bash, BashItem) and bash.running and bash.output == "a\nb"
    state = reduce(state, BashFinished("a\nb\nc", exit_code=0))
    assert state.bash_id is None
    done = state.items[-1]
    assert isinstance(done, BashItem) and not done.running and done.exit_code == 0


def test_pvector_matches_list() -> None:
    vec: PVector[int] = PVector()
    ref: list[int] = []
    for n in range(100):
        vec = vec.append(n)
        ref.append(n)
    vec2 = vec.set(65, -1)
    ref[65] = -1
    assert list(vec2) == ref and vec2[-1] == 99 and len(vec2) == 100
    assert changed_positions(vec, vec2) == [65]
    assert changed_positions(vec2, vec2.append(7)) == [100]
    assert list(PVector(ref)) == ref


def test_usage_helper() -> None:
    assert usage(1, 2).total_tokens == 3


def test_a_lasting_status_line_is_never_replaced() -> None:
    """Consecutive status lines replace each other (pi), but a result the user must read
    ("Restored 3 files (undo: …)") stays when the move's own line follows it."""
    from pitui.ui.view.events import AddNotice

    state = reduce_all(
        ChatState(),
        [
            AddNotice("Restored 1 file (undo: restore abc)", lasting=True),
            AddNotice("Cloned to a new session: ~/s.jsonl", lasting=True),
            AddNotice("working…"),
            AddNotice("done"),
        ],
    )
    texts = [i.text for i in state.items if isinstance(i, NoticeItem)]
    assert texts == [
        "Restored 1 file (undo: restore abc)",
        "Cloned to a new session: ~/s.jsonl",
        "done",
    ]
