"""AgentState (PI_SPEC §3.2): what the agent holds between and during runs."""

from __future__ import annotations

import msgspec

from pitui.agent.messages import AgentMessage
from pitui.agent.tool import AgentTool
from pitui.ai.types import Model, ThinkingLevel


class AgentState(msgspec.Struct):
    """The agent's state. The loop changes it only through events (PI_SPEC §3.2).

    ``messages`` grows only at ``message_end``; a streaming update replaces
    ``stream_message`` and never adds history.
    """

    system_prompt: str = ""
    """Sent as the system prompt of every model call."""
    model: Model | None = None
    """The model every call goes to; ``prompt()`` refuses to run without one."""
    thinking_level: ThinkingLevel = "off"
    """Reasoning effort passed to the provider as ``StreamOptions.reasoning``."""
    tools: list[AgentTool] = msgspec.field(default_factory=list)
    """The tools the model may call."""
    messages: list[AgentMessage] = msgspec.field(default_factory=list)
    """The transcript; appended only on ``message_end``."""
    is_streaming: bool = False
    """True from run start until ``agent_end``."""
    stream_message: AgentMessage | None = None
    """The message being streamed (set at message_start/update, cleared at message_end)."""
    pending_tool_calls: set[str] = msgspec.field(default_factory=set)
    """Ids of tool calls between ``tool_execution_start`` and ``tool_execution_end``."""
    error: str | None = None
    """The ``errorMessage`` of the last failed turn; cleared at run start."""
