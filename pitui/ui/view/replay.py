"""The view of a finished transcript (a resumed session), built in one pass.

The reducer (:mod:`pitui.ui.view.reducer`) makes a new immutable ChatState for every event:
right for a stream, where one token changes one item and the app diffs the old state
against the new. Replaying a resumed session through it cost ~35 µs a message: several
ChatState copies per message, and a copy of the whole id index per added item, which
grows with the square of the transcript's length. Here the items of finished messages
go into a plain list and dict (:class:`~pitui.ui.view.replay_state.Replay`), and the
ChatState is made once, at the end.

This module reads typed messages; :mod:`pitui.ui.view.replay_json` reads message JSON
into the same builder (the first view of a session being resumed).
"""

from __future__ import annotations

from collections.abc import Iterable

from pitui.agent.messages import AgentMessage
from pitui.ai.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.replay_memo import ReplayMemo
from pitui.ui.view.replay_state import Replay


def state_from_messages(
    messages: Iterable[AgentMessage], memo: ReplayMemo | None = None
) -> ChatState:
    """The view of a finished transcript (e.g. a resumed session). With ``memo`` (the
    transcript it last replayed), only what follows the part both share is replayed."""
    if memo is None:
        return _replayed(messages).state()
    listed = messages if isinstance(messages, list) else list(messages)
    replay = Replay()
    start = memo.resume(replay, listed)
    _replayed(listed[start:], replay, memo, start)
    if replay.conflict:  # a message changed an item taken from the memo
        memo.start_over()
        replay = _replayed(listed, Replay(), memo, 0)
    memo.keep(listed, replay)
    return replay.state()


def _replayed(
    messages: Iterable[AgentMessage],
    replay: Replay | None = None,
    memo: ReplayMemo | None = None,
    first: int = 0,
) -> Replay:
    """``replay`` (a new one by default) fed ``messages``; with ``memo``, marked before
    each user message (``first``: the position of the first message in the transcript)."""
    replay = replay if replay is not None else Replay()
    for position, message in enumerate(messages, start=first):
        if memo is not None and isinstance(message, UserMessage):
            memo.mark(replay, position)
        if isinstance(message, AssistantMessage):
            _assistant(replay, message)
        elif isinstance(message, UserMessage):
            replay.user(*items.user_text(message.content))
        elif isinstance(message, ToolResultMessage):
            replay.tool_result(
                message.tool_call_id,
                message.tool_name,
                items.result_state(message),
                items.blocks_text(message.content),
                message.details,
            )
        else:
            replay.custom(message.model_dump(mode="json", by_alias=True))
    return replay


def _assistant(replay: Replay, message: AssistantMessage) -> None:
    mid = replay.next_id()
    has_calls = False
    for index, block in enumerate(message.content):
        if isinstance(block, TextContent):
            replay.text(mid, index, block.text)
        elif isinstance(block, ThinkingContent):
            replay.thinking(mid, index, block.thinking)
        elif isinstance(block, ToolCall):
            has_calls = True
            replay.call(mid, block.id, block.name, block.arguments)
    replay.assistant_end(
        mid,
        replay.usage.plus(message),
        message.timestamp,
        message.stop_reason,
        message.error_message,
        has_calls,
    )
