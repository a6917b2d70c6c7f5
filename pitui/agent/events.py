"""Agent events (PI_SPEC §3.3): the lifecycle of a run, its turns, messages and tool calls.

Subscribers (the session store, the UI bridge, JSON mode) see these in the exact orders
of PI_SPEC §3.5. ``model_dump`` gives pi's JSON field names.
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, SerializeAsAny

from pitui.agent.messages import AgentMessage
from pitui.agent.tool import AgentToolResult
from pitui.ai.events import AssistantMessageEvent
from pitui.ai.own_model import OwnModel
from pitui.ai.types import AssistantMessage, ToolResultMessage


class _Event(OwnModel):
    """Built by pitui only: unvalidated, validators on first use (see OwnModel)."""


# Custom messages are subclasses: serialise them as what they are, not as the base.
AnyAgentMessage: TypeAlias = SerializeAsAny[AgentMessage]


class AgentStartEvent(_Event):
    type: Literal["agent_start"] = "agent_start"


class AgentEndEvent(_Event):
    type: Literal["agent_end"] = "agent_end"
    messages: list[AnyAgentMessage]
    """Every message this run added."""


class TurnStartEvent(_Event):
    type: Literal["turn_start"] = "turn_start"


class TurnEndEvent(_Event):
    type: Literal["turn_end"] = "turn_end"
    message: AnyAgentMessage
    tool_results: list[ToolResultMessage]


class MessageStartEvent(_Event):
    type: Literal["message_start"] = "message_start"
    message: AnyAgentMessage


class MessageUpdateEvent(_Event):
    """A streaming assistant update; ``message`` is a snapshot of the partial."""

    type: Literal["message_update"] = "message_update"
    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent


class MessageEndEvent(_Event):
    type: Literal["message_end"] = "message_end"
    message: AnyAgentMessage


class ToolExecutionStartEvent(_Event):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]


class ToolExecutionUpdateEvent(_Event):
    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: AgentToolResult


class ToolExecutionEndEvent(_Event):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool


AgentEvent: TypeAlias = Annotated[
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent,
    Field(discriminator="type"),
]
