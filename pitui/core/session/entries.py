"""The session header and the entry union (PI_SPEC §5.2, §5.3).

Every entry is a pydantic model with pi's camelCase keys. An entry of a type pitui does
not know loads as :class:`UnknownEntry`: it keeps every key and is written back unchanged.
Entries read from a file must be validated with :func:`parse_entry` (or the models'
``load``) so that they keep exactly the keys they were read with.
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Discriminator, PlainSerializer, PlainValidator, Tag, TypeAdapter

import pitui.core.messages  # noqa: F401  (registers the coding-agent message roles)
from pitui.agent.messages import AgentMessage, parse_agent_message
from pitui.ai._base import LOAD_CONTEXT, ON_FIRST_USE, PiModel
from pitui.ai.types import UserContent


def _validate_message(value: Any) -> AgentMessage:
    if isinstance(value, PiModel):
        return value  # type: ignore[return-value]  # already an AgentMessage
    if not isinstance(value, dict):
        raise ValueError("message must be an object")
    return parse_agent_message(value)


def _dump_message(message: AgentMessage) -> dict[str, Any]:
    return message.to_json_dict()


MessageField: TypeAlias = Annotated[
    AgentMessage, PlainValidator(_validate_message), PlainSerializer(_dump_message)
]


class SessionHeader(PiModel):
    """First line of a session file. v1 headers lack ``version``."""

    type: Literal["session"] = "session"
    version: int | None = None
    id: str
    timestamp: str = ""
    cwd: str = ""
    parent_session: str | None = None
    """Path of the session this one was forked from."""


class EntryBase(PiModel):
    """Fields every entry has: a short id, its parent (None for a root) and an ISO time."""

    type: str
    id: str
    parent_id: str | None
    timestamp: str = ""


class MessageEntry(EntryBase):
    """A transcript message (user, assistant, toolResult, bashExecution, custom …)."""

    type: Literal["message"] = "message"
    message: MessageField


class ThinkingLevelChangeEntry(EntryBase):
    """The thinking level changed from here on."""

    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str


class ModelChangeEntry(EntryBase):
    """The model changed from here on."""

    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class CompactionEntry(EntryBase):
    """The path before this entry was summarised; entries from ``first_kept_entry_id`` stay."""

    model_config = ON_FIRST_USE  # a kind a new session may never hold

    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str | None = None
    tokens_before: int = 0
    details: Any = None
    from_hook: bool | None = None


class BranchSummaryEntry(EntryBase):
    """Summary of the branch the user navigated away from (``from_id`` = where it starts)."""

    model_config = ON_FIRST_USE  # a kind a new session may never hold

    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str
    details: Any = None
    from_hook: bool | None = None


class CustomEntry(EntryBase):
    """Extension state: stored, never sent to the model."""

    model_config = ON_FIRST_USE  # a kind a new session may never hold

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None


class CustomMessageEntry(EntryBase):
    """An injected message that is part of the context (as a user message)."""

    model_config = ON_FIRST_USE  # a kind a new session may never hold

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserContent]
    details: Any = None
    display: bool = True
    exclude_from_context: bool | None = None
    """pitui only (pi ignores it): keep this message from the model."""


class LabelEntry(EntryBase):
    """Sets (or, with no label, clears) the label of ``target_id``."""

    model_config = ON_FIRST_USE  # a kind a new session may never hold

    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None


class SessionInfoEntry(EntryBase):
    """Session metadata; the latest non-empty ``name`` is the session's name."""

    model_config = ON_FIRST_USE  # a kind a new session may never hold

    type: Literal["session_info"] = "session_info"
    name: str | None = None


class UnknownEntry(EntryBase):
    """An entry of a type pitui does not know: kept verbatim, part of the tree, never sent."""

    model_config = ON_FIRST_USE  # only ever read from a file


KNOWN_ENTRY_TYPES = frozenset(
    {
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)


def _entry_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if isinstance(value, UnknownEntry):
        return "unknown"
    return kind if kind in KNOWN_ENTRY_TYPES else "unknown"


SessionEntry: TypeAlias = Annotated[
    Annotated[MessageEntry, Tag("message")]
    | Annotated[ThinkingLevelChangeEntry, Tag("thinking_level_change")]
    | Annotated[ModelChangeEntry, Tag("model_change")]
    | Annotated[CompactionEntry, Tag("compaction")]
    | Annotated[BranchSummaryEntry, Tag("branch_summary")]
    | Annotated[CustomEntry, Tag("custom")]
    | Annotated[CustomMessageEntry, Tag("custom_message")]
    | Annotated[LabelEntry, Tag("label")]
    | Annotated[SessionInfoEntry, Tag("session_info")]
    | Annotated[UnknownEntry, Tag("unknown")],
    Discriminator(_entry_tag),
]

_entry_adapter: TypeAdapter[SessionEntry] | None = None
"""Built on the first entry read: a new session (a print run's) never reads one, and the
union's validator embeds every entry type's, the rare ones too."""


def parse_entry(data: dict[str, Any]) -> SessionEntry:
    """Validate one entry object read from a file, keeping exactly its keys."""
    global _entry_adapter
    if _entry_adapter is None:
        _entry_adapter = TypeAdapter(SessionEntry)
    return _entry_adapter.validate_python(data, context=LOAD_CONTEXT)


def parse_header(data: dict[str, Any]) -> SessionHeader:
    """Validate a header object read from a file, keeping exactly its keys."""
    return SessionHeader.load(data)


def entry_to_json(entry: SessionEntry | SessionHeader) -> dict[str, Any]:
    """The entry as pi writes it."""
    return entry.to_json_dict()
