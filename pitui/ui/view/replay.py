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
from pitui.ui.view.replay_state import Replay


def state_from_messages(messages: Iterable[AgentMessage]) -> ChatState:
    """The view of a finished transcript (e.g. a resumed session)."""
    replay = Replay()
    for message in messages:
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
    return replay.state()


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
