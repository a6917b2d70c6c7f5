"""Property tests: any run the agent can produce leaves a consistent view model."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ai.types import StopReason
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.reducer import reduce
from pitui.ui.view.state import TOOL_DONE_STATES, AssistantItem, ThinkingItem, ToolCardItem
from tests.ui.script import Script

TEXT = st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=4)
STOPS: list[StopReason] = ["stop", "toolUse", "length", "aborted", "error"]


@st.composite
def runs(draw: st.DrawFn) -> Script:
    s = Script().start().user(draw(st.text(max_size=10)))
    call_no = 0
    for _ in range(draw(st.integers(1, 3))):
        s.assistant()
        if draw(st.booleans()):
            s.thinking(*draw(TEXT))
        s.text(*draw(TEXT), end=draw(st.booleans()))
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call_no += 1
            call_id = f"c{call_no}"
            calls.append(call_id)
            s.tool_call(call_id, "bash", {"command": "x"}, end=draw(st.booleans()))
        stop = draw(st.sampled_from(STOPS))
        s.end(stop, "boom" if stop == "error" else None)
        if stop in ("aborted", "error"):
            break
        for call_id in calls:
            s.tool_start(call_id, "bash", {"command": "x"})
            if draw(st.booleans()):
                s.tool_update(call_id, "bash", draw(st.text(max_size=8)))
            if draw(st.booleans()):  # sometimes the run is cut before the result
                s.tool_end(call_id, "bash", "out", is_error=draw(st.booleans()))
        s.turn_end()
    return s.agent_end()


def check_consistent(state: ChatState) -> None:
    ids = [item.id for item in state.items]
    assert len(ids) == len(set(ids))
    assert {item_id: pos for pos, item_id in enumerate(ids)} == dict(state.index)
    streaming = {
        i.message_id
        for i in state.items
        if isinstance(i, AssistantItem | ThinkingItem) and i.streaming
    }
    assert len(streaming) <= 1
    cards = [i for i in state.items if isinstance(i, ToolCardItem)]
    assert len({c.tool_call_id for c in cards}) == len(cards)


@settings(max_examples=60, deadline=None)
@given(runs())
def test_any_run_ends_consistent(script: Script) -> None:
    state = ChatState()
    for event in script.events:
        state = reduce(state, event)
        check_consistent(state)
    assert not state.busy and state.streaming_id is None and state.open_tools == frozenset()
    for item in state.items:
        if isinstance(item, AssistantItem | ThinkingItem):
            assert not item.streaming
        if isinstance(item, ToolCardItem):
            assert item.state in TOOL_DONE_STATES
