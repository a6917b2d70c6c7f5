"""Session-level events: AgentEvents plus what the façade adds (PI_SPEC §3.3).

pi's additions (auto-retry, auto-compaction) keep pi's names and fields. pitui's own
(``tool_denied``, ``user_bash_*``, ``session_notice``, ``session_changed``) tell a UI
what pi's interactive mode learns by reaching into its session object.
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field

from pitui.agent.events import AgentEvent
from pitui.ai._base import ON_FIRST_USE, PiModel


class _Event(PiModel):
    """Base of the session's own events: each is built the first time one happens."""

    model_config = ON_FIRST_USE


class AutoRetryStartEvent(_Event):
    type: Literal["auto_retry_start"] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class AutoRetryEndEvent(_Event):
    type: Literal["auto_retry_end"] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


class AutoCompactionStartEvent(_Event):
    type: Literal["auto_compaction_start"] = "auto_compaction_start"
    reason: Literal["threshold", "overflow"]


class AutoCompactionEndEvent(_Event):
    type: Literal["auto_compaction_end"] = "auto_compaction_end"
    result: Any = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None


class ToolDeniedEvent(_Event):
    """The permission gate refused a call (its paired error result follows)."""

    type: Literal["tool_denied"] = "tool_denied"
    tool_call_id: str
    tool_name: str
    message: str


class UserBashStartEvent(_Event):
    """A ``!`` / ``!!`` command started; its bashExecution message ends it."""

    type: Literal["user_bash_start"] = "user_bash_start"
    command: str
    exclude_from_context: bool = False


class UserBashUpdateEvent(_Event):
    type: Literal["user_bash_update"] = "user_bash_update"
    output: str


class SessionNoticeEvent(_Event):
    """Something the user should read once (e.g. compaction settings fitted to a small
    context window); not an error, nothing to answer."""

    type: Literal["session_notice"] = "session_notice"
    message: str
    level: Literal["info", "warning"] = "info"


SessionChangeKind: TypeAlias = Literal[
    "model", "thinking", "name", "label", "new", "resume", "navigate", "fork", "compaction"
]


class SessionChangedEvent(_Event):
    """Something outside a run changed; for transcript changes the UI re-reads messages."""

    type: Literal["session_changed"] = "session_changed"
    kind: SessionChangeKind


SessionOnlyEvent: TypeAlias = Annotated[
    AutoRetryStartEvent
    | AutoRetryEndEvent
    | AutoCompactionStartEvent
    | AutoCompactionEndEvent
    | ToolDeniedEvent
    | UserBashStartEvent
    | UserBashUpdateEvent
    | SessionNoticeEvent
    | SessionChangedEvent,
    Field(discriminator="type"),
]
SessionEvent: TypeAlias = AgentEvent | SessionOnlyEvent
