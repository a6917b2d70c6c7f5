"""The view model's items: the ChatItems a ChatState holds (ChatState is in chat_state.py).

ChatItems are what the screen shows (cards, fold state, approval prompts). They carry
UI-only state (``expanded``, ``copied``) that never reaches the model or the session file.
Everything here is immutable; :mod:`pitui.ui.view.reducer` builds new states. The
items are :class:`~pitui.records.Record` classes, not generated dataclasses: a start
that shows a notice creates them before its first frame.

Item ids are stable for the life of an item so widgets can update one item in place:

- ``m<seq>`` a user / custom / summary / bash message (one item per message);
- ``m<seq>.<contentIndex>`` one text or thinking block of assistant message ``m<seq>``;
- ``m<seq>.end`` the abort / error line under an assistant message;
- ``tool:<toolCallId>`` the card of one tool call;
- ``approval:<toolCallId>`` the approval prompt of one call;
- ``n<seq>`` a notice;
- ``progress:<operation>:<seq>`` the card of a long operation (a compaction, a branch
  summary); one runs per operation at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from pitui.records import Record

ToolState: TypeAlias = Literal["pending", "running", "success", "error", "denied"]
NoticeLevel: TypeAlias = Literal["info", "warning", "error"]
ApprovalStatus: TypeAlias = Literal["pending", "allowed", "denied"]
TOOL_DONE_STATES: frozenset[ToolState] = frozenset({"success", "error", "denied"})


class UserItem(Record):
    """A user prompt (or a delivered steering / follow-up message)."""

    id: str
    text: str
    images: int = 0
    branch: tuple[int, int] | None = None
    """``(i, n)``: this message is the i-th of n sibling branches (``‹ i/n ›``)."""


class AssistantItem(Record):
    """One text block of an assistant reply; ``streaming`` until the block ends."""

    id: str
    message_id: str
    text: str
    streaming: bool = True
    copied: bool = False
    branch: tuple[int, int] | None = None
    """``(i, n)`` on a reply's first text block: the reply starts the i-th of n sibling
    branches (``‹ i/n ›``)."""


class ThinkingItem(Record):
    """One thinking block; collapsed to a one-line summary unless ``expanded``."""

    id: str
    message_id: str
    text: str
    streaming: bool = True
    expanded: bool = False


class ToolCardItem(Record):
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


class BashItem(Record):
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


class CustomItem(Record):
    """A ``custom`` message with ``display: true``, boxed with its ``[customType]``."""

    id: str
    custom_type: str
    text: str
    expanded: bool = True


class CompactionItem(Record):
    """A compaction summary: collapsed to ``Compacted from N tokens``."""

    id: str
    summary: str
    tokens_before: int
    expanded: bool = False


class SystemPromptItem(Record):
    """A pi 1.6 system message: collapsed to ``System prompt · 5 sections, 4 tools``."""

    id: str
    summary: str
    """One line: what it declares or changes."""
    text: str
    """The prompt text, then its tool changes (shown expanded)."""
    expanded: bool = False


class BranchSummaryItem(Record):
    """A branch summary, collapsed by default."""

    id: str
    summary: str
    expanded: bool = False


class ApprovalItem(Record):
    """A permission prompt for one tool call."""

    id: str
    tool_call_id: str
    tool_name: str
    args: Mapping[str, Any]
    status: ApprovalStatus = "pending"
    reason: str = ""


class NoticeItem(Record):
    """A status line, warning or error (e.g. ``Operation aborted``, ``Error: …``)."""

    id: str
    text: str
    level: NoticeLevel = "info"
    lasting: bool = False
    """A result the user must read (files restored, a new session file): the next
    status line does not replace it, as consecutive status lines otherwise do (pi)."""


class ProgressItem(Record):
    """A long operation the user waits for (elapsed time, Esc cancels), then its outcome."""

    id: str
    title: str
    """What runs, e.g. ``Summarizing branch``, ``Compacting context``."""
    started: float | None = None
    """``time.monotonic()`` when it started: the widget shows the time since (None: since
    the card first showed, for an operation the session started by itself)."""
    outcome: str | None = None
    """None while running; then what came of it (``Branch summary cancelled`` …); ``""``
    when the outcome shows elsewhere (a summary card): the card is then hidden."""
    level: NoticeLevel = "info"
    detail: str = ""
    """A second line: why it runs or what it works on."""
    cancel_hint: str = "Esc to cancel"


ChatItem: TypeAlias = (
    UserItem
    | AssistantItem
    | ThinkingItem
    | ToolCardItem
    | BashItem
    | CustomItem
    | CompactionItem
    | BranchSummaryItem
    | SystemPromptItem
    | ApprovalItem
    | NoticeItem
    | ProgressItem
)


def tool_item_id(tool_call_id: str) -> str:
    """The item id of a tool call's card."""
    return f"tool:{tool_call_id}"


def approval_item_id(tool_call_id: str) -> str:
    """The item id of a tool call's approval prompt."""
    return f"approval:{tool_call_id}"


def progress_item_id(operation: str, seq: int) -> str:
    """The item id of one run of a long operation's card."""
    return f"progress:{operation}:{seq}"
