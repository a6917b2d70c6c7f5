"""The pure reducer: ``reduce(state, event) -> state`` for AgentEvents and UiEvents.

It runs once per streamed token, so a delta touches only the one item it changes
(:class:`~pitui.ui.view.pvector.PVector` shares everything else) and never scans history.
Wording of aborts and errors follows pi's interactive mode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeAlias, TypeVar

from pitui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pitui.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.session_events import SessionEvent
from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.events import UiEvent
from pitui.ui.view.evolve import replace
from pitui.ui.view.items import ABORTED_TEXT
from pitui.ui.view.replay import state_from_messages as state_from_messages
from pitui.ui.view.session_handlers import SESSION_HANDLERS, WORKING
from pitui.ui.view.state import (
    TOOL_DONE_STATES,
    AssistantItem,
    ChatItem,
    NoticeItem,
    ThinkingItem,
    ToolCardItem,
    ToolState,
    UserItem,
    tool_item_id,
)
from pitui.ui.view.ui_handlers import UI_HANDLERS

AnyEvent: TypeAlias = SessionEvent | UiEvent
E = TypeVar("E")
Handler: TypeAlias = Callable[[ChatState, Any], ChatState]


def reduce(state: ChatState, event: AnyEvent) -> ChatState:
    """Apply one AgentEvent, session event or UiEvent. Unknown types change nothing."""
    kind = type(event)
    handler = _HANDLERS.get(kind) or SESSION_HANDLERS.get(kind) or UI_HANDLERS.get(kind)
    return state if handler is None else handler(state, event)


def reduce_all(state: ChatState, events: Iterable[AnyEvent]) -> ChatState:
    """Apply events in order."""
    for event in events:
        state = reduce(state, event)
    return state


# --------------------------------------------------------------------------- messages


def _on_message_start(state: ChatState, event: MessageStartEvent) -> ChatState:
    message = event.message
    if isinstance(message, AssistantMessage):
        state, mid = items.next_id(state)
        state = replace(state, streaming_id=mid)
        return _sync_assistant(state, mid, message, final=False)
    if isinstance(message, UserMessage):
        return _on_user(state, message)
    if isinstance(message, ToolResultMessage):
        return _on_tool_result(state, message)
    return items.add_custom(state, message)


def _on_user(state: ChatState, message: UserMessage) -> ChatState:
    text, images = items.user_text(message.content)
    state = items.dequeue_delivered(state, text)
    state, mid = items.next_id(state)
    return items.add(state, UserItem(mid, text, images))


def _on_tool_result(state: ChatState, message: ToolResultMessage) -> ChatState:
    card = state.tool_card(message.tool_call_id)
    if card is not None and card.state in TOOL_DONE_STATES:
        return state
    output = items.blocks_text(message.content)
    done = items.result_state(message)
    if card is None:  # a result whose call we never saw (e.g. a trimmed transcript)
        card = ToolCardItem(
            tool_item_id(message.tool_call_id), message.tool_call_id, message.tool_name, {}
        )
    card = replace(card, state=done, output=output, details=message.details, args_complete=True)
    return items.close_tool(items.put(state, card), message.tool_call_id)


def _on_message_update(state: ChatState, event: MessageUpdateEvent) -> ChatState:
    mid = state.streaming_id
    if mid is None:  # an update without a start: treat it as the start
        state, mid = items.next_id(state)
        state = replace(state, streaming_id=mid)
    sub = event.assistant_message_event
    index = getattr(sub, "content_index", None)
    content = event.message.content
    if index is None or not 0 <= index < len(content):
        return state
    block_done = sub.type.endswith("_end")
    return _sync_block(state, mid, index, content[index], streaming=not block_done)


def _sync_block(
    state: ChatState, mid: str, index: int, block: Any, *, streaming: bool
) -> ChatState:
    item_id = f"{mid}.{index}"
    if isinstance(block, TextContent):
        return items.put(state, AssistantItem(item_id, mid, block.text, streaming))
    if isinstance(block, ThinkingContent):
        old = state.get(item_id)
        expanded = old.expanded if isinstance(old, ThinkingItem) else state.thinking_expanded
        return items.put(state, ThinkingItem(item_id, mid, block.thinking, streaming, expanded))
    if isinstance(block, ToolCall):
        return _upsert_call(state, mid, block, complete=not streaming)
    return state


def _upsert_call(state: ChatState, mid: str, call: ToolCall, *, complete: bool) -> ChatState:
    card = state.tool_card(call.id)
    if card is None:
        card = ToolCardItem(
            tool_item_id(call.id), call.id, call.name, dict(call.arguments), mid,
            expanded=state.tools_expanded,
        )  # fmt: skip
        state = replace(state, open_tools=state.open_tools | {call.id})
    elif card.state in ("pending", "running"):
        card = replace(card, args=dict(call.arguments), message_id=card.message_id or mid)
    if complete and not card.args_complete:
        card = replace(card, args_complete=True)
    return items.put(state, card)


def _sync_assistant(
    state: ChatState, mid: str, message: AssistantMessage, *, final: bool
) -> ChatState:
    for index, block in enumerate(message.content):
        if isinstance(block, TextContent | ThinkingContent):
            text = block.text if isinstance(block, TextContent) else block.thinking
            if not text.strip() and state.get(f"{mid}.{index}") is None:
                continue  # pi never shows blank blocks
        state = _sync_block(state, mid, index, block, streaming=not final)
    return state


def _on_message_end(state: ChatState, event: MessageEndEvent) -> ChatState:
    message = event.message
    if not isinstance(message, AssistantMessage):
        return state
    mid = state.streaming_id
    if mid is None:
        state, mid = items.next_id(state)
    state = _sync_assistant(state, mid, message, final=True)
    state = replace(
        state,
        streaming_id=None,
        usage=state.usage.plus(message),
        last_assistant_timestamp=message.timestamp,
    )
    if message.stop_reason not in ("aborted", "error"):
        return state
    error_text = ABORTED_TEXT if message.stop_reason == "aborted" else message.error_message
    state = _close_open_tools(state, error_text or "Error")
    if message.tool_calls():
        return state  # the tool cards show the error
    line = ABORTED_TEXT if message.stop_reason == "aborted" else items.error_line(message)
    return items.put(state, NoticeItem(f"{mid}.end", line, "error"))


def _close_open_tools(state: ChatState, text: str) -> ChatState:
    for call_id in sorted(state.open_tools):
        card = state.tool_card(call_id)
        if card is not None and card.state not in TOOL_DONE_STATES:
            state = items.put(state, replace(card, state="error", output=text))
    return replace(state, open_tools=frozenset())


# --------------------------------------------------------------------------- tools


def _on_tool_start(state: ChatState, event: ToolExecutionStartEvent) -> ChatState:
    card = state.tool_card(event.tool_call_id)
    if card is None:
        card = ToolCardItem(
            tool_item_id(event.tool_call_id), event.tool_call_id, event.tool_name,
            dict(event.args), state.streaming_id, expanded=state.tools_expanded,
        )  # fmt: skip
        state = replace(state, open_tools=state.open_tools | {event.tool_call_id})
    if card.state == "pending":
        card = replace(card, state="running", args=dict(event.args), args_complete=True)
    return items.put(state, card)


def _on_tool_update(state: ChatState, event: ToolExecutionUpdateEvent) -> ChatState:
    card = state.tool_card(event.tool_call_id)
    if card is None or card.state in TOOL_DONE_STATES:
        return state
    output = items.blocks_text(event.partial_result.content)
    card = replace(card, state="running", output=output, details=event.partial_result.details)
    return items.put(state, card)


def _on_tool_end(state: ChatState, event: ToolExecutionEndEvent) -> ChatState:
    card = state.tool_card(event.tool_call_id)
    if card is None:
        state = _on_tool_start(
            state,
            ToolExecutionStartEvent(
                tool_call_id=event.tool_call_id, tool_name=event.tool_name, args={}
            ),
        )
        card = state.tool_card(event.tool_call_id)
        assert card is not None
    done: ToolState = "error" if event.is_error else "success"
    if card.state == "denied":
        done = "denied"
    output = items.blocks_text(event.result.content)
    card = replace(card, state=done, output=output, details=event.result.details)
    return items.close_tool(items.put(state, card), event.tool_call_id)


# --------------------------------------------------------------------------- run


def _on_agent_start(state: ChatState, event: AgentStartEvent) -> ChatState:
    return replace(state, busy=True, activity=WORKING)


def _on_agent_end(state: ChatState, event: AgentEndEvent) -> ChatState:
    last = event.messages[-1] if event.messages else None
    failed = isinstance(last, AssistantMessage) and last.stop_reason in ("aborted", "error")
    if state.streaming_id is not None:
        state = _finish_streaming(state, state.streaming_id)
    reason = ABORTED_TEXT
    if isinstance(last, AssistantMessage) and last.stop_reason == "error":
        reason = last.error_message or "Error"
    state = _close_open_tools(state, reason)
    unseen = isinstance(last, AssistantMessage) and last.timestamp != state.last_assistant_timestamp
    if failed and unseen and isinstance(last, AssistantMessage):
        # pi's failure path: only agent_end carries the synthetic error message.
        line = ABORTED_TEXT if last.stop_reason == "aborted" else items.error_line(last)
        state = items.notice(state, line, "error")
    return replace(state, busy=False, streaming_id=None, activity=None)


def _finish_streaming(state: ChatState, mid: str) -> ChatState:
    prefix = f"{mid}."
    for pos in range(len(state.items) - 1, -1, -1):
        item: ChatItem = state.items[pos]
        if not item.id.startswith(prefix):
            if not item.id.startswith("tool:"):
                break
            continue
        if isinstance(item, AssistantItem | ThinkingItem) and item.streaming:
            state = items.put(state, replace(item, streaming=False))
    return state


def _ignore(state: ChatState, event: object) -> ChatState:
    return state


_HANDLERS: dict[type, Handler] = {
    AgentStartEvent: _on_agent_start,
    AgentEndEvent: _on_agent_end,
    TurnStartEvent: _ignore,
    TurnEndEvent: _ignore,
    MessageStartEvent: _on_message_start,
    MessageUpdateEvent: _on_message_update,
    MessageEndEvent: _on_message_end,
    ToolExecutionStartEvent: _on_tool_start,
    ToolExecutionUpdateEvent: _on_tool_update,
    ToolExecutionEndEvent: _on_tool_end,
}
