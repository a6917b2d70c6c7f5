"""The assistant streaming event protocol (PI_SPEC §1.4).

Every non-terminal event carries ``partial``: the in-progress AssistantMessage, the same
mutable object for the whole stream. Exactly one terminal event (``done`` or ``error``)
ends a stream; its message is the stream's result.
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from pitui.ai.own_model import OwnModel
from pitui.ai.types import AssistantMessage, ToolCall


class _Event(OwnModel):
    """Built by pitui only: unvalidated, validators on first use (see OwnModel)."""


class _Partial(_Event):
    partial: AssistantMessage


class _Block(_Partial):
    content_index: int


class StartEvent(_Partial):
    type: Literal["start"] = "start"


class TextStartEvent(_Block):
    type: Literal["text_start"] = "text_start"


class TextDeltaEvent(_Block):
    type: Literal["text_delta"] = "text_delta"
    delta: str


class TextEndEvent(_Block):
    type: Literal["text_end"] = "text_end"
    content: str


class ThinkingStartEvent(_Block):
    type: Literal["thinking_start"] = "thinking_start"


class ThinkingDeltaEvent(_Block):
    type: Literal["thinking_delta"] = "thinking_delta"
    delta: str


class ThinkingEndEvent(_Block):
    type: Literal["thinking_end"] = "thinking_end"
    content: str


class ToolCallStartEvent(_Block):
    type: Literal["toolcall_start"] = "toolcall_start"


class ToolCallDeltaEvent(_Block):
    type: Literal["toolcall_delta"] = "toolcall_delta"
    delta: str


class ToolCallEndEvent(_Block):
    type: Literal["toolcall_end"] = "toolcall_end"
    tool_call: ToolCall


class DoneEvent(_Event):
    type: Literal["done"] = "done"
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    reason: Literal["aborted", "error"]
    error: AssistantMessage


AssistantMessageEvent: TypeAlias = Annotated[
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent,
    Field(discriminator="type"),
]

TERMINAL_EVENT_TYPES = frozenset({"done", "error"})
