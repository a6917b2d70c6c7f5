"""pi's LLM message model: content blocks, the three protocol messages, usage, tools, context.

JSON produced by these models is what pi writes (PI_SPEC §1): camelCase keys, unset
optionals absent, unknown fields preserved. Python attributes are snake_case.
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

import time
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, PrivateAttr

from pitui.ai._base import ON_FIRST_USE, PiModel, empty_list, share_loaded_private

# pi writes integral costs as ``0`` and fractional ones as floats; keep both as read.
Number: TypeAlias = int | float
StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")

# Wire APIs pitui speaks. A model's ``api`` picks the adapter.
Api: TypeAlias = str
KNOWN_APIS = ("anthropic-messages", "openai-completions", "openai-responses", "demo")


def now_ms() -> int:
    """Unix epoch milliseconds, the timestamp unit of every pi message."""
    return time.time_ns() // 1_000_000


# --------------------------------------------------------------------------- content


class TextContent(PiModel):
    """A run of text. ``text_signature`` is set only by OpenAI Responses."""

    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(PiModel):
    """Model reasoning; the signature's meaning is provider specific (PI_SPEC §1.1)."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ImageContent(PiModel):
    """An image as raw base64 (no ``data:`` prefix)."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ToolCall(PiModel):
    """A tool invocation requested by the model."""

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = None
    _arguments_problem: str | None = PrivateAttr(default=None)
    """Set by a provider when the stream ended with arguments that are not complete JSON:
    ``arguments`` then holds a lenient reading that must never run (never written)."""

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        share_loaded_private(self, context)  # a loaded call's problem is None: one dict

    @property
    def arguments_problem(self) -> str | None:
        """Why the arguments cannot be trusted (not complete JSON), or None."""
        return self._arguments_problem

    def set_final_arguments(self, value: Any, problem: str | None) -> None:
        """The arguments as the stream ended them, with what was wrong with them (if any)."""
        self.__dict__["arguments"] = value if isinstance(value, dict) else {}
        self._arguments_problem = problem


UserContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContent: TypeAlias = Annotated[
    TextContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
ToolResultContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]


# --------------------------------------------------------------------------- usage


class UsageCost(PiModel):
    """Cost in USD, one figure per usage component plus the total."""

    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0
    total: Number = 0


class Usage(PiModel):
    """Token counts of one reply; ``input`` excludes cache reads (PI_SPEC §2.6)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: UsageCost = Field(default_factory=UsageCost)


# --------------------------------------------------------------------------- messages


class UserMessage(PiModel):
    """What the user said: a string or text/image blocks."""

    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(PiModel):
    """A model reply. While streaming, the same object is mutated in place."""

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=empty_list)
    api: str
    provider: str
    model: str
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        """All text blocks joined, the reply as a reader sees it."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    def tool_calls(self) -> list[ToolCall]:
        """The tool-call blocks in content order."""
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(PiModel):
    """The outcome of one tool call; ``details`` is for UI and logs only."""

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = Field(default_factory=empty_list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)
    added_tool_names: list[str] | None = None


Message: TypeAlias = Annotated[
    UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")
]
MESSAGE_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)


# --------------------------------------------------------------------------- tools & context


class Tool(PiModel):
    """A tool as the model sees it: name, description and a JSON-schema for arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Context(PiModel):
    """Everything one model request carries (built by the agent loop with
    ``model_construct``: its validator, which embeds every message's, waits for first use)."""

    model_config = ON_FIRST_USE

    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=empty_list)
    tools: list[Tool] | None = None


# --------------------------------------------------------------------------- models


class ModelCost(PiModel):
    """Prices in USD per million tokens."""

    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0


InputKind: TypeAlias = Literal["text", "image"]


def _text_only() -> list[InputKind]:
    return ["text"]


class Model(PiModel):
    """A model a provider serves, with what pitui needs to talk to it and to budget for it."""

    id: str
    name: str = ""
    api: str
    provider: str
    base_url: str = ""
    reasoning: bool = False
    input: list[InputKind] = Field(default_factory=_text_only)
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128_000
    max_tokens: int = 16_384
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        """``provider/id``, how users name a model on the command line."""
        return f"{self.provider}/{self.id}"


def calculate_cost(model: Model, usage: Usage) -> UsageCost:
    """Fill ``usage.cost`` from the model's prices, as pi does (USD per million tokens)."""
    cost = usage.cost
    cost.input = model.cost.input / 1e6 * usage.input
    cost.output = model.cost.output / 1e6 * usage.output
    cost.cache_read = model.cost.cache_read / 1e6 * usage.cache_read
    cost.cache_write = model.cost.cache_write / 1e6 * usage.cache_write
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost
