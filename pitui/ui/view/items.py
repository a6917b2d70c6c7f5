"""Small pure helpers the reducers share: adding and replacing items, text extraction."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pitui.core.denial import was_denied
from pitui.core.system_summary import system_summary
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.evolve import replace
from pitui.ui.view.state import (
    BashItem,
    BranchSummaryItem,
    ChatItem,
    CompactionItem,
    CustomItem,
    NoticeItem,
    NoticeLevel,
    SystemPromptItem,
    ToolState,
)

if TYPE_CHECKING:  # no models at import: a resumed session's first items are built from JSON
    from pitui.agent.messages import AgentMessage
    from pitui.ai.types import AssistantMessage, ToolResultMessage

ABORTED_TEXT = "Operation aborted"


def next_id(state: ChatState) -> tuple[ChatState, str]:
    """Allocate the next message id ``m<seq>``."""
    seq = state.seq + 1
    return replace(state, seq=seq), f"m{seq}"


def add(state: ChatState, item: ChatItem) -> ChatState:
    """Append a new item (its id must be unused)."""
    position = len(state.items)
    return replace(state, items=state.items.append(item), index={**state.index, item.id: position})


def put(state: ChatState, item: ChatItem) -> ChatState:
    """Replace the item with the same id in place, or append it."""
    position = state.index.get(item.id)
    if position is None:
        return add(state, item)
    return replace(state, items=state.items.set(position, item))


def notice(
    state: ChatState, text: str, level: NoticeLevel = "info", *, lasting: bool = False
) -> ChatState:
    """Append a notice line."""
    seq = state.seq + 1
    return add(replace(state, seq=seq), NoticeItem(f"n{seq}", text, level, lasting))


def carry_notices(old: ChatState, new: ChatState, obsolete: Iterable[str] = ()) -> ChatState:
    """``new`` with ``old``'s warnings and errors that belong to no message appended.

    The view is rebuilt from the transcript when a session attaches; what start-up
    reported before that (a bad theme or keybindings file, an unknown ``--theme``) is
    not in any transcript and would be lost with the old state. Notices whose text is in
    ``obsolete`` (e.g. "no session connected") are left behind.
    """
    dropped = set(obsolete)
    for item in old.items:
        if not isinstance(item, NoticeItem) or item.level == "info" or item.text in dropped:
            continue
        if item.id.startswith("n"):
            new = notice(new, item.text, item.level)
    return new


def status(state: ChatState, text: str, *, lasting: bool = False) -> ChatState:
    """A status line; consecutive status lines replace each other (pi), except a
    ``lasting`` one, which is never replaced and replaces nothing."""
    last = state.items[-1] if len(state.items) else None
    if not lasting and isinstance(last, NoticeItem) and last.level == "info" and not last.lasting:
        return put(state, replace(last, text=text))
    return notice(state, text, "info", lasting=lasting)


def close_tool(state: ChatState, tool_call_id: str) -> ChatState:
    """Forget a finished call in the set of open ones."""
    if tool_call_id not in state.open_tools:
        return state
    return replace(state, open_tools=state.open_tools - {tool_call_id})


def result_state(message: ToolResultMessage) -> ToolState:
    """A tool card's end state from its result (see :func:`result_state_of`)."""
    return result_state_of(message.is_error, message.details)


def result_state_of(is_error: bool, details: object) -> ToolState:
    """A tool card's end state from its result's ``isError`` and ``details``: a call the
    gate refused is ``denied`` (recorded in the details, so a resumed session shows it
    as it was live)."""
    if not is_error:
        return "success"
    return "denied" if was_denied(details) else "error"


def error_line(message: AssistantMessage) -> str:
    """The notice under a failed reply (pi's wording)."""
    return error_text(message.error_message)


def error_text(error_message: str | None) -> str:
    """The notice under a reply that failed with ``error_message``."""
    return f"Error: {error_message or 'Unknown error'}"


def _block_text(block: Any) -> str | None:
    if isinstance(block, dict):
        text = block.get("text")
        return text if block.get("type") == "text" and isinstance(text, str) else None
    if getattr(block, "type", None) == "text":
        text = getattr(block, "text", None)
        return text if isinstance(text, str) else None
    return None


def blocks_text(blocks: Iterable[Any]) -> str:
    """The text blocks of a content list joined by newlines (images are skipped)."""
    texts = [t for t in (_block_text(b) for b in blocks) if t is not None]
    return "\n".join(texts)


def user_text(content: str | Iterable[Any]) -> tuple[str, int]:
    """A user message's text and its number of images."""
    if isinstance(content, str):
        return content, 0
    blocks = list(content)
    images = sum(1 for b in blocks if getattr(b, "type", None) == "image")
    return blocks_text(blocks), images


def dequeue_delivered(state: ChatState, text: str) -> ChatState:
    """Drop the first queued steering / follow-up text equal to a delivered message (pi)."""
    if text in state.steering:
        return replace(state, steering=_without(state.steering, text))
    if text in state.follow_up:
        return replace(state, follow_up=_without(state.follow_up, text))
    return state


def _without(queue: tuple[str, ...], text: str) -> tuple[str, ...]:
    position = queue.index(text)
    return queue[:position] + queue[position + 1 :]


def add_custom(state: ChatState, message: AgentMessage) -> ChatState:
    """The item for a coding-agent message role (bash, custom, summaries), if shown."""
    data: dict[str, Any] = message.model_dump(mode="json", by_alias=True)
    role = str(data.get("role"))
    if role == "bashExecution":
        running = _running_bash(state, str(data.get("command", "")))
        if running is not None:  # the live ``!`` item ends with its message
            done = replace(_bash_item(running.id, data), expanded=running.expanded)
            bash_id = None if state.bash_id == running.id else state.bash_id
            return replace(put(state, done), bash_id=bash_id)
    builder = CUSTOM_BUILDERS.get(role)
    if builder is None:
        return state
    state, mid = next_id(state)
    item = builder(mid, data)
    return state if item is None else add(state, item)


def _running_bash(state: ChatState, command: str, horizon: int = 200) -> BashItem | None:
    """The oldest still-running ``!`` item for ``command`` among the last ``horizon`` items."""
    found: BashItem | None = None
    for pos in range(len(state.items) - 1, max(len(state.items) - horizon, 0) - 1, -1):
        item = state.items[pos]
        if isinstance(item, BashItem) and item.running and item.command == command:
            found = item
    return found


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return blocks_text(content)
    return ""


def _custom(mid: str, data: dict[str, Any]) -> ChatItem | None:
    if not data.get("display"):
        return None
    return CustomItem(
        mid, str(data.get("customType", "custom")), _content_text(data.get("content"))
    )


def _bash(mid: str, data: dict[str, Any]) -> ChatItem:
    return _bash_item(mid, data)


def _bash_item(mid: str, data: dict[str, Any]) -> BashItem:
    exit_code = data.get("exitCode")
    return BashItem(
        mid,
        str(data.get("command", "")),
        str(data.get("output", "")),
        exit_code if isinstance(exit_code, int) else None,
        bool(data.get("cancelled")),
        bool(data.get("truncated")),
        data.get("fullOutputPath"),
        bool(data.get("excludeFromContext")),
    )


def _compaction(mid: str, data: dict[str, Any]) -> ChatItem:
    tokens = data.get("tokensBefore")
    return CompactionItem(
        mid, str(data.get("summary", "")), tokens if isinstance(tokens, int) else 0
    )


def _branch(mid: str, data: dict[str, Any]) -> ChatItem:
    return BranchSummaryItem(mid, str(data.get("summary", "")))


def _system(mid: str, data: dict[str, Any]) -> ChatItem:
    from pitui.core.messages import SystemMessage  # pi 1.6's role: rare, models loaded later

    message = SystemMessage.load(data)
    lines = [message.text()]
    added = [f"+ {t.name}: {t.description}" for t in message.tools_added or []]
    removed = [f"− {t.name}" for t in message.tools_removed or []]
    if added or removed:
        lines.append("Tools:\n" + "\n".join(added + removed))
    body = "\n\n".join(line for line in lines if line)
    return SystemPromptItem(mid, system_summary(data), body)


CUSTOM_BUILDERS: dict[str, Callable[[str, dict[str, Any]], ChatItem | None]] = {
    "custom": _custom,
    "bashExecution": _bash,
    "compactionSummary": _compaction,
    "branchSummary": _branch,
    "system": _system,
}
"""The item of each shown coding-agent role, from its id and JSON (None: not shown)."""
