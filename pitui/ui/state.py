"""The view model: ChatItems and ChatState.

ChatItems are what the screen shows (cards, fold state, approval prompts). They carry
UI-only state (``expanded``, ``copied``) that never reaches the model or the session file.
Everything here is immutable; :mod:`pitui.ui.reducer` builds new states.

Item ids are stable for the life of an item so widgets can update one item in place:

- ``m<seq>`` a user / custom / summary / bash message (one item per message);
- ``m<seq>.<contentIndex>`` one text or thinking block of assistant message ``m<seq>``;
- ``m<seq>.end`` the abort / error line under an assistant message;
- ``tool:<toolCallId>`` the card of one tool call;
- ``approval:<toolCallId>`` the approval prompt of one call;
- ``n<seq>`` a notice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pitui.ui.pvector import PVector

ToolState: TypeAlias = Literal["pending", "running", "success", "error", "denied"]
NoticeLevel: TypeAlias = Literal["info", "warning", "error"]
ApprovalStatus: TypeAlias = Literal["pending", "allowed", "denied"]
TOOL_DONE_STATES: frozenset[ToolState] = frozenset({"success", "error", "denied"})


@dataclass(frozen=True, slots=True)
class UserItem:
    """A user prompt (or a delivered steering / follow-up message)."""

    id: str
    text: str
    images: int = 0


@dataclass(frozen=True, slots=True)
class AssistantItem:
    """One text block of an assistant reply; ``streaming`` until the block ends."""

    id: str
    message_id: str
    text: str
    streaming: bool = True
    copied: bool = False


@dataclass(frozen=True, slots=True)
class ThinkingItem:
    """One thinking block; collapsed to a one-line summary unless ``expanded``."""

    id: str
    message_id: str
    text: str
    streaming: bool = True
    expanded: bool = False


@dataclass(frozen=True, slots=True)
class ToolCardItem:
    """One tool call from the moment it streams in until its result (or abort)."""

    id: str
    tool_call_id: str
    tool_name: str
    args: Mapping[str, Any]
    message_id: str | None = None
    state: ToolState = "pending"
    output: str = ""
    details: Any = None
    args_complete: bool = False
    expanded: bool = False


@dataclass(frozen=True, slots=True)
class BashItem:
    """A user ``!`` / ``!!`` shell command and its output."""

    id: str
    command: str
    output: str = ""
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool = False
    running: bool = False
    expanded: bool = False


@dataclass(frozen=True, slots=True)
class CustomItem:
    """A ``custom`` message with ``display: true``, boxed with its ``[customType]``."""

    id: str
    custom_type: str
    text: str
    expanded: bool = True


@dataclass(frozen=True, slots=True)
class CompactionItem:
    """A compaction summary: collapsed to ``Compacted from N tokens``."""

    id: str
    summary: str
    tokens_before: int
    expanded: bool = False


@dataclass(frozen=True, slots=True)
class BranchSummaryItem:
    """A branch summary, collapsed by default."""

    id: str
    summary: str
    expanded: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalItem:
    """A permission prompt for one tool call."""

    id: str
    tool_call_id: str
    tool_name: str
    args: Mapping[str, Any]
    status: ApprovalStatus = "pending"
    reason: str = ""


@dataclass(frozen=True, slots=True)
class NoticeItem:
    """A status line, warning or error (e.g. ``Operation aborted``, ``Error: …``)."""

    id: str
    text: str
    level: NoticeLevel = "info"


ChatItem: TypeAlias = (
    UserItem
    | AssistantItem
    | ThinkingItem
    | ToolCardItem
    | BashItem
    | CustomItem
    | CompactionItem
    | BranchSummaryItem
    | ApprovalItem
    | NoticeItem
)


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Token and cost totals over the assistant messages seen."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    context_tokens: int | None = 0
    """Tokens of the last successful reply's context (input + output + cache), for ctx %;
    None when unknown (after a compaction, until the next reply)."""


@dataclass(frozen=True, slots=True)
class ChatState:
    """Everything the chat view shows, in order, plus the live bits around it."""

    items: PVector[ChatItem] = field(default_factory=PVector)
    index: Mapping[str, int] = field(default_factory=dict)
    """Item id → position in ``items``; copied only when an item is added."""
    seq: int = 0
    streaming_id: str | None = None
    """Message id (``m<seq>``) of the assistant message being streamed."""
    open_tools: frozenset[str] = frozenset()
    """Tool-call ids whose cards are not finished yet."""
    busy: bool = False
    activity: str | None = None
    """The transient working line (``Working...``, retry and compaction waits)."""
    bash_id: str | None = None
    """Item id of the running user ``!`` command, if any."""
    steering: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()
    usage: UsageTotals = field(default_factory=UsageTotals)
    last_assistant_timestamp: int | None = None
    thinking_expanded: bool = False
    tools_expanded: bool = False

    def get(self, item_id: str) -> ChatItem | None:
        """The item with ``item_id``, if present."""
        pos = self.index.get(item_id)
        return None if pos is None else self.items[pos]

    def tool_card(self, tool_call_id: str) -> ToolCardItem | None:
        """The card of a tool call, by the call's id."""
        item = self.get(tool_item_id(tool_call_id))
        return item if isinstance(item, ToolCardItem) else None

    def tool_cards(self) -> list[ToolCardItem]:
        """All tool cards, oldest first."""
        return [i for i in self.items if isinstance(i, ToolCardItem)]


def tool_item_id(tool_call_id: str) -> str:
    """The item id of a tool call's card."""
    return f"tool:{tool_call_id}"


def approval_item_id(tool_call_id: str) -> str:
    """The item id of a tool call's approval prompt."""
    return f"approval:{tool_call_id}"
