"""Conversation selection and search as pure view-model functions."""

from __future__ import annotations

from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.search import SearchIndex
from pitui.ui.view.selection import (
    code_blocks,
    copy_of,
    is_foldable,
    last_code_block,
    step,
    tool_card_of,
)
from pitui.ui.view.state import (
    AssistantItem,
    BashItem,
    ChatItem,
    CompactionItem,
    NoticeItem,
    ThinkingItem,
    ToolCardItem,
    UserItem,
)

REPLY = "Use this:\n\n```py\nprint(1)\n```\n\nor:\n\n```sh\necho 2\n```\n"


def _state(*chat: ChatItem) -> ChatState:
    state = ChatState()
    for item in chat:
        state = items.add(state, item)
    return state


def _sample() -> ChatState:
    return _state(
        UserItem("m1", "Find the port"),
        ThinkingItem("m2.0", "m2", "look at the PORT", streaming=False),
        AssistantItem("m2.1", "m2", REPLY, streaming=False),
        ToolCardItem("tool:c1", "c1", "read", {"path": "a.py"}, "m2", "success", "PORT = 1"),
        NoticeItem("n3", "port notice"),
        BashItem("m4", "ls", "a.py\nport.txt"),
        CompactionItem("m5", "the port was 3000", 1200),
    )


def test_step_clamps_and_starts_at_the_end() -> None:
    state = _sample()
    assert step(state, None, -1) == "m5"
    assert step(state, "m5", 1) == "m5"
    assert step(state, "m5", -1) == "m4"
    assert step(state, "m1", -1) == "m1"
    assert step(state, "gone", 1) == "m5"
    assert step(ChatState(), None, 1) is None


def test_fold_copy_code_and_tool_card() -> None:
    state = _sample()
    assert is_foldable(state.get("m2.0")) and not is_foldable(state.get("m1"))
    reply = state.get("m2.1")
    assert reply is not None
    assert copy_of(reply).text == REPLY and copy_of(reply).what == "reply (markdown)"
    bash = state.get("m4")
    assert bash is not None and copy_of(bash).text == "$ ls\na.py\nport.txt"
    code = last_code_block(reply)
    assert code is not None and code.text == "echo 2\n" and code.what == "last of 2 code blocks"
    assert code_blocks("no code") == []
    assert tool_card_of(state, reply) == "tool:c1"
    assert tool_card_of(state, state.get("tool:c1")) == "tool:c1"
    assert tool_card_of(state, state.get("m1")) is None


def test_search_counts_every_item_and_steps_with_wraparound() -> None:
    state = _sample()
    index = SearchIndex()
    # notices are not messages; the tool's output and the card's summary are
    assert index.count(state, "PORT") == 5
    last = index.last_before(state, "port")
    assert last is not None and (last.item_id, last.label) == ("m5", "5/5")
    first = index.step(state, "port", last, 1)
    assert first is not None and (first.item_id, first.number) == ("m1", 1)
    back = index.step(state, "port", first, -1)
    assert back is not None and back.number == 5
    second = index.step(state, "port", first, 1)
    assert second is not None and (second.item_id, second.occurrence) == ("m2.0", 0)
    around = index.last_before(state, "port", "m2.1")
    assert around is not None and around.item_id == "m2.0"
    assert index.count(state, "nothing") == 0 and index.last_before(state, "zzz") is None


def test_search_corpus_follows_new_item_versions() -> None:
    state = _sample()
    index = SearchIndex()
    assert index.count(state, "needle") == 0
    state = items.put(state, AssistantItem("m2.1", "m2", "a needle, a NEEDLE", streaming=False))
    assert index.count(state, "needle") == 2
    assert index.corpus(state) is index.corpus(state)
