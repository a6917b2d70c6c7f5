"""The coding agent's own message roles and what the model sees of them (PI_SPEC §4).

Importing this module registers ``bashExecution``, ``custom``, ``branchSummary`` and
``compactionSummary`` into the AgentMessage registry, so session files and the agent loop
get typed objects for them, and pi 1.6's ``system`` role (:class:`SystemMessage`).
:func:`convert_to_llm` turns a transcript into the protocol messages a request carries,
with pi's exact texts.
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from pitui.agent.messages import (
    AgentMessage,
    CustomAgentMessage,
    leaves_input_alone,
    register_message_type,
)
from pitui.ai._base import ON_FIRST_USE, PiModel
from pitui.ai.types import (
    AssistantMessage,
    Message,
    TextContent,
    Tool,
    ToolResultMessage,
    UserContent,
    UserMessage,
    now_ms,
)
from pitui.core.system_summary import system_summary

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
# pi puts no newline before this closing tag (unlike the compaction one).
BRANCH_SUMMARY_SUFFIX = "</summary>"


class BashExecutionMessage(CustomAgentMessage):
    """A shell command the user ran with ``!`` (or ``!!``: kept out of the model's context)."""

    model_config = ON_FIRST_USE

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str = ""
    exit_code: int | None = None
    """None when the command was killed or cancelled."""
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    timestamp: int = Field(default_factory=now_ms)
    exclude_from_context: bool | None = None
    """True for ``!!``: shown to the user, never sent to the model."""


class CustomMessage(CustomAgentMessage):
    """A message injected by the app or an extension.

    Two independent switches: ``display`` (shown in the UI) and ``exclude_from_context``
    (kept from the model). pi only knows the first; it ignores the second, so files stay
    readable by pi.
    """

    model_config = ON_FIRST_USE

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContent]
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)
    exclude_from_context: bool | None = None


class BranchSummaryMessage(CustomAgentMessage):
    """The summary of a branch the conversation came back from."""

    model_config = ON_FIRST_USE

    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(CustomAgentMessage):
    """The summary that replaces the compacted part of the conversation."""

    model_config = ON_FIRST_USE

    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: int = Field(default_factory=now_ms)


class ToolReference(PiModel):
    """A tool named by a :class:`SystemMessage` that stops being available."""

    model_config = ON_FIRST_USE

    name: str


class SystemMessage(CustomAgentMessage):
    """pi 1.6's record of the system prompt and the tools, in the transcript itself.

    The first request of a pi 1.6 session writes one with every prompt section and tool;
    later ones patch ``sections`` by name (``None`` removes one), add instructions in
    ``content`` and list ``toolsAdded`` / ``toolsRemoved``. Replaying them in order gives
    pi's current prompt. pitui reads, keeps, shows and lists them, but never sends them:
    they describe pi's prompt and pi's tools, and pitui sends its own (see
    :func:`convert_to_llm`). Fields are pi's; unknown ones are kept.
    """

    model_config = ON_FIRST_USE

    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""
    sections: dict[str, str | None] | None = None
    timestamp: int = Field(default_factory=now_ms)
    tools_added: list[Tool] | None = None
    tools_removed: list[ToolReference] | None = None

    def text(self) -> str:
        """The prompt text of this message: content, then its sections (pi's rendering)."""
        content = self.content
        parts = [content if isinstance(content, str) else "\n".join(b.text for b in content)]
        parts += [text for text in (self.sections or {}).values() if text is not None]
        return "\n\n".join(part for part in parts if part)

    def summary(self) -> str:
        """One line: what this message declares or changes (see :func:`system_summary`)."""
        return system_summary(self.to_json_dict())


register_message_type("bashExecution", BashExecutionMessage)
register_message_type("custom", CustomMessage)
register_message_type("branchSummary", BranchSummaryMessage)
register_message_type("compactionSummary", CompactionSummaryMessage)
register_message_type("system", SystemMessage)


def text_of(content: object) -> str:
    """The text blocks of user-like content joined with no separator (pi's editor text).

    ``content`` is a string or a list of blocks; anything else has no text.
    """
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(block.text for block in blocks if isinstance(block, TextContent))


def iso_to_ms(iso: str) -> int:
    """Epoch milliseconds of an ISO-8601 time as pi writes it (``…Z``); 0 if unreadable."""
    try:
        return int(datetime.fromisoformat(iso).timestamp() * 1000 + 0.5)
    except (ValueError, TypeError):
        return 0


def bash_execution_to_text(message: BashExecutionMessage) -> str:
    """The user text the model sees for a ``!`` command (PI_SPEC §4, byte-exact)."""
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code is not None and message.exit_code != 0:
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def _user_text(text: str, timestamp: int) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def _convert_one(message: AgentMessage) -> Message | None:
    if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
        return message
    if isinstance(message, BashExecutionMessage):
        if message.exclude_from_context:
            return None
        return _user_text(bash_execution_to_text(message), message.timestamp)
    if isinstance(message, CustomMessage):
        if message.exclude_from_context:
            return None
        content = message.content
        blocks: list[UserContent] = (
            [TextContent(text=content)] if isinstance(content, str) else content
        )
        return UserMessage(content=blocks, timestamp=message.timestamp)
    if isinstance(message, BranchSummaryMessage):
        text = BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX
        return _user_text(text, message.timestamp)
    if isinstance(message, CompactionSummaryMessage):
        text = COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX
        return _user_text(text, message.timestamp)
    # A pi 1.6 system message (SystemMessage) is not sent. pi's own converter passes it
    # on and its providers fold every one into the request's system prompt and tools (or
    # send later ones in place where a model accepts that); continuing a session, pi
    # first appends a change that brings the recorded prompt to its current one. So what
    # a model sees is pi's current prompt and tools, never a stale one. pitui's current
    # prompt describes the tools pitui runs and goes in Context.system_prompt; the
    # recorded one describes pi's tools, and sending both would give the model two
    # prompts. Unknown roles never reach the model either.
    return None


@leaves_input_alone  # new messages for custom roles, protocol ones passed on unchanged
def convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """Map a transcript to the protocol messages of one request, as pi's ``convertToLlm``.

    Protocol messages pass through unchanged (the same objects); custom roles become user
    messages with pi's exact texts and the original timestamp; ``excludeFromContext``
    bash and custom messages and unknown roles are dropped. Order is kept.
    """
    converted: list[Message] = []
    for message in messages:
        llm = _convert_one(message)
        if llm is not None:
            converted.append(llm)
    return converted
