"""Reducer handlers for :mod:`pitui.ui.view.events` (view-only changes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeAlias

from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.events import (
    AddNotice,
    ApprovalRequested,
    ApprovalResolved,
    BashFinished,
    BashOutput,
    BashStarted,
    ClearQueue,
    MarkCopied,
    QueueMessage,
    ShowBranchSwitches,
    ToggleAllThinking,
    ToggleAllTools,
    ToggleItem,
)
from pitui.ui.view.progress import PROGRESS_HANDLERS
from pitui.ui.view.state import (
    TOOL_DONE_STATES,
    ApprovalItem,
    ApprovalStatus,
    AssistantItem,
    BashItem,
    BranchSummaryItem,
    CompactionItem,
    CustomItem,
    SystemPromptItem,
    ThinkingItem,
    ToolCardItem,
    UserItem,
    approval_item_id,
)

FOLDABLE = (
    ThinkingItem,
    ToolCardItem,
    BashItem,
    CustomItem,
    CompactionItem,
    BranchSummaryItem,
    SystemPromptItem,
)
Handler: TypeAlias = Callable[[ChatState, Any], ChatState]
WAITING_FOR_APPROVAL = "waiting for approval"


def _toggle(state: ChatState, event: ToggleItem) -> ChatState:
    item = state.get(event.item_id)
    if not isinstance(item, FOLDABLE):
        return state
    return items.put(state, replace(item, expanded=not item.expanded))


def _set_all(
    state: ChatState, kind: type[Any] | tuple[type[Any], ...], expanded: bool
) -> ChatState:
    for item in list(state.items):
        if isinstance(item, kind) and item.expanded != expanded:
            state = items.put(state, replace(item, expanded=expanded))
    return state


def _toggle_thinking(state: ChatState, event: ToggleAllThinking) -> ChatState:
    expanded = not state.thinking_expanded
    return replace(_set_all(state, ThinkingItem, expanded), thinking_expanded=expanded)


TOOL_OUTPUT_KINDS = (ToolCardItem, CompactionItem, BranchSummaryItem)
"""What Ctrl+O opens and closes: tool output and the summary cards (as pi)."""


def _toggle_tools(state: ChatState, event: ToggleAllTools) -> ChatState:
    expanded = not state.tools_expanded
    return replace(_set_all(state, TOOL_OUTPUT_KINDS, expanded), tools_expanded=expanded)


def _notice(state: ChatState, event: AddNotice) -> ChatState:
    if event.level == "info":
        return items.status(state, event.text, lasting=event.lasting)
    return items.notice(state, event.text, event.level, lasting=event.lasting)


def _queue(state: ChatState, event: QueueMessage) -> ChatState:
    if event.kind == "steer":
        return replace(state, steering=(*state.steering, event.text))
    return replace(state, follow_up=(*state.follow_up, event.text))


def _clear_queue(state: ChatState, event: ClearQueue) -> ChatState:
    return replace(state, steering=(), follow_up=())


def _copied(state: ChatState, event: MarkCopied) -> ChatState:
    item = state.get(event.item_id)
    if not isinstance(item, AssistantItem):
        return state
    return items.put(state, replace(item, copied=True))


def _approval_requested(state: ChatState, event: ApprovalRequested) -> ChatState:
    item = ApprovalItem(
        approval_item_id(event.tool_call_id), event.tool_call_id, event.tool_name, dict(event.args)
    )
    card = state.tool_card(event.tool_call_id)
    if card is not None and card.state not in TOOL_DONE_STATES and not card.output:
        state = items.put(state, replace(card, output=WAITING_FOR_APPROVAL))
    return items.put(state, item)


def _approval_resolved(state: ChatState, event: ApprovalResolved) -> ChatState:
    approval = state.get(approval_item_id(event.tool_call_id))
    if isinstance(approval, ApprovalItem):
        status: ApprovalStatus = "allowed" if event.allowed else "denied"
        state = items.put(state, replace(approval, status=status, reason=event.reason))
    card = state.tool_card(event.tool_call_id)
    if not event.allowed and card is not None and card.state not in TOOL_DONE_STATES:
        text = "Denied by user" + (f": {event.reason}" if event.reason else "")
        state = items.put(state, replace(card, state="denied", output=text))
    elif card is not None and card.output == WAITING_FOR_APPROVAL:
        state = items.put(state, replace(card, output=""))
    return state


def _bash_started(state: ChatState, event: BashStarted) -> ChatState:
    state, mid = items.next_id(state)
    item = BashItem(mid, event.command, exclude_from_context=event.exclude_from_context)
    return replace(items.add(state, replace(item, running=True)), bash_id=mid)


def _bash_output(state: ChatState, event: BashOutput) -> ChatState:
    item = state.get(state.bash_id) if state.bash_id else None
    if not isinstance(item, BashItem):
        return state
    return items.put(state, replace(item, output=event.output))


def _bash_finished(state: ChatState, event: BashFinished) -> ChatState:
    item = state.get(state.bash_id) if state.bash_id else None
    if not isinstance(item, BashItem):
        return state
    done = replace(
        item,
        output=event.output,
        exit_code=event.exit_code,
        cancelled=event.cancelled,
        truncated=event.truncated,
        full_output_path=event.full_output_path,
        running=False,
    )
    return replace(items.put(state, done), bash_id=None)


def _branch_switches(state: ChatState, event: ShowBranchSwitches) -> ChatState:
    for item in list(state.items):
        if isinstance(item, UserItem | AssistantItem) and item.branch != event.switches.get(
            item.id
        ):
            state = items.put(state, replace(item, branch=event.switches.get(item.id)))
    return state


UI_HANDLERS: dict[type, Handler] = {
    ToggleItem: _toggle,
    ToggleAllThinking: _toggle_thinking,
    ToggleAllTools: _toggle_tools,
    AddNotice: _notice,
    QueueMessage: _queue,
    ClearQueue: _clear_queue,
    MarkCopied: _copied,
    ApprovalRequested: _approval_requested,
    ApprovalResolved: _approval_resolved,
    BashStarted: _bash_started,
    BashOutput: _bash_output,
    BashFinished: _bash_finished,
    ShowBranchSwitches: _branch_switches,
    **PROGRESS_HANDLERS,
}
