"""UI-side events the reducer understands besides AgentEvents.

These come from the user (fold a card, queue a message) or from the app's own machinery
(approval prompts, ``!`` commands, notices). They change only the view model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pitui.ui.view.state import NoticeLevel


@dataclass(frozen=True, slots=True)
class ToggleItem:
    """Fold or unfold one item (thinking, tool card, bash, summary, custom)."""

    item_id: str


@dataclass(frozen=True, slots=True)
class ToggleAllThinking:
    """Ctrl+T: expand or collapse every thinking block (and the default for new ones)."""


@dataclass(frozen=True, slots=True)
class ToggleAllTools:
    """Ctrl+O: expand or collapse every tool card (and the default for new ones)."""


@dataclass(frozen=True, slots=True)
class AddNotice:
    """Show a status line, warning or error in the conversation."""

    text: str
    level: NoticeLevel = "info"
    lasting: bool = False
    """Never replaced by the next status line (see ``NoticeItem.lasting``)."""


@dataclass(frozen=True, slots=True)
class QueueMessage:
    """A message typed while the agent works: shown above the composer until delivered."""

    text: str
    kind: Literal["steer", "followUp"] = "steer"


@dataclass(frozen=True, slots=True)
class ClearQueue:
    """Alt+Up / abort: the queued texts went back to the editor."""


@dataclass(frozen=True, slots=True)
class MarkCopied:
    """``/copy`` copied this item's text."""

    item_id: str


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    """The permission gate asks whether a tool call may run."""

    tool_call_id: str
    tool_name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ApprovalResolved:
    """The user answered an approval prompt; a denial marks the card ``denied``."""

    tool_call_id: str
    allowed: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class BashStarted:
    """A user ``!`` (or ``!!``) command started."""

    command: str
    exclude_from_context: bool = False


@dataclass(frozen=True, slots=True)
class BashOutput:
    """The running ``!`` command's output so far (replaces the previous output)."""

    output: str


@dataclass(frozen=True, slots=True)
class BashFinished:
    """The running ``!`` command ended."""

    output: str
    exit_code: int | None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None


@dataclass(frozen=True, slots=True)
class ProgressStarted:
    """A long operation started: its card shows at the end of the conversation, with the
    elapsed time and how to cancel (see :mod:`pitui.ui.view.progress`)."""

    operation: str
    title: str
    started: float | None = None
    """``time.monotonic()`` at the start (None: when the card first shows)."""
    detail: str = ""
    cancel_hint: str = "Esc to cancel"


@dataclass(frozen=True, slots=True)
class ProgressEnded:
    """The operation ended: its card shows ``outcome`` instead (``""``: the card goes,
    the outcome is shown by other events, e.g. :class:`CompactionDone`)."""

    operation: str
    outcome: str = ""
    level: NoticeLevel = "info"


@dataclass(frozen=True, slots=True)
class CompactionDone:
    """A compaction was written: its card ends and the summary card shows."""

    summary: str
    tokens_before: int


@dataclass(frozen=True, slots=True)
class ShowBranchSwitches:
    """Which user messages have sibling branches: item id → ``(i, n)``; others none."""

    switches: Mapping[str, tuple[int, int]] = field(default_factory=dict)


UiEvent: TypeAlias = (
    ToggleItem
    | ToggleAllThinking
    | ToggleAllTools
    | AddNotice
    | QueueMessage
    | ClearQueue
    | MarkCopied
    | ApprovalRequested
    | ApprovalResolved
    | BashStarted
    | BashOutput
    | BashFinished
    | ProgressStarted
    | ProgressEnded
    | CompactionDone
    | ShowBranchSwitches
)
