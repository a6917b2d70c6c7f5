"""Branch summaries for tree navigation (pi's ``branch-summarization.ts``, PI_SPEC §7).

Collecting, budgeting and file tracking read the raw session table; only the messages that
fit the budget are validated. :func:`plan_navigation` gives where the leaf goes and which
text returns to the composer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pitui.agent.messages import AgentMessage
from pitui.ai.abort import AbortSignal
from pitui.ai.options import StreamOptions
from pitui.ai.types import Model, UserMessage
from pitui.core.compaction.files import (
    FileOperations,
    compute_file_lists,
    extract_from_raw,
    format_file_operations,
)
from pitui.core.compaction.prompts import (
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    NO_CONTENT_TO_SUMMARIZE,
)
from pitui.core.compaction.serialize import serialize_agent_messages
from pitui.core.compaction.summarize import reply_text, summary_reply
from pitui.core.compaction.tokens import estimate_raw_entry
from pitui.core.compaction.view import PathView
from pitui.core.messages import text_of
from pitui.core.session.entries import CustomMessageEntry, MessageEntry, SessionEntry
from pitui.core.session.table import EntryTable
from pitui.core.settings import RetrySettings

DEFAULT_CONTEXT_WINDOW = 128_000
BRANCH_SUMMARY_MAX_TOKENS = 2048
_SUMMARY_ENTRIES = ("compaction", "branch_summary")


@dataclass
class BranchEntries:
    """The entries left behind by a navigation, oldest first, and the common ancestor."""

    view: PathView
    """The abandoned entries (a path fragment, not from the root)."""
    common_ancestor_id: str | None


def collect_entries_for_branch_summary(
    table: EntryTable, old_leaf_id: str | None, target_id: str
) -> BranchEntries:
    """Entries from the old leaf back to (not including) the deepest common ancestor.

    Compactions are not a stop (pi's docs say they are; its code does not stop).
    """
    if not old_leaf_id or old_leaf_id not in table.index:
        return BranchEntries(PathView(table, []), None)
    old_path = {table.ids[p] for p in table.path_positions(table.index[old_leaf_id])}
    target = table.index.get(target_id)
    target_path = [] if target is None else table.path_positions(target)
    common = next((table.ids[p] for p in reversed(target_path) if table.ids[p] in old_path), None)
    positions: list[int] = []
    seen: set[int] = set()
    current: str | None = old_leaf_id
    while current and current != common:
        position = table.index.get(current)
        if position is None or position in seen:
            break
        seen.add(position)
        positions.append(position)
        current = table.parents[position]
    positions.reverse()
    return BranchEntries(PathView(table, positions), common)


def _is_summary_source(view: PathView, index: int) -> bool:
    """Whether the entry gives a message to a branch summary (tool results do not)."""
    kind = view.kinds[index]
    if kind == "message":
        message = view.message(index)
        return message is not None and message.get("role") != "toolResult"
    return kind in ("custom_message", "branch_summary", "compaction")


@dataclass
class BranchPreparation:
    """The messages that fit the budget (oldest first), file operations, their tokens."""

    messages: list[AgentMessage] = field(default_factory=list)
    file_ops: FileOperations = field(default_factory=FileOperations)
    total_tokens: int = 0
    indices: list[int] = field(default_factory=list)
    """Indices (into the collected entries) of the included messages."""


def _seed_from_summaries(view: PathView, ops: FileOperations) -> None:
    for index, kind in enumerate(view.kinds):
        if kind == "branch_summary":
            raw = view.raw(index)
            if not raw.get("fromHook") and raw.get("details"):
                ops.seed(raw.get("details"))


def prepare_branch_entries(view: PathView, token_budget: int = 0) -> BranchPreparation:
    """Newest-first walk adding messages until ``token_budget`` (0: no limit) is reached.

    A compaction or branch summary that does not fit is still added while the total is
    under 90 % of the budget. File operations come from every collected branch summary's
    details, then from each message looked at (including the one that stopped the walk).
    """
    prep = BranchPreparation()
    _seed_from_summaries(view, prep.file_ops)
    included: list[int] = []
    for index in range(len(view) - 1, -1, -1):
        if not _is_summary_source(view, index):
            continue
        message = view.message(index)
        if message is not None:
            extract_from_raw(message, prep.file_ops)
        tokens = estimate_raw_entry(view.raw(index))
        if token_budget > 0 and prep.total_tokens + tokens > token_budget:
            is_summary = view.kinds[index] in _SUMMARY_ENTRIES
            if is_summary and prep.total_tokens < token_budget * 0.9:
                included.append(index)
                prep.total_tokens += tokens
            break
        included.append(index)
        prep.total_tokens += tokens
    included.reverse()
    prep.indices = included
    prep.messages = view.messages(included)
    return prep


def branch_prompt(
    conversation: str, custom_instructions: str | None, replace_instructions: bool
) -> str:
    """The user text of a branch-summary request."""
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: {custom_instructions}"
    else:
        instructions = BRANCH_SUMMARY_PROMPT
    return f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}"


@dataclass
class BranchSummaryResult:
    """pi's ``BranchSummaryResult``: a summary, or aborted, or an error text."""

    summary: str | None = None
    read_files: list[str] | None = None
    modified_files: list[str] | None = None
    aborted: bool = False
    error: str | None = None


def token_budget(model: Model | None, reserve_tokens: int) -> int:
    """Context window (128000 when unknown) minus the reserve."""
    window = (model.context_window if model is not None else 0) or DEFAULT_CONTEXT_WINDOW
    return window - reserve_tokens


async def generate_branch_summary(
    entries: BranchEntries,
    model: Model,
    api_key: str | None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = 16384,
    retry: RetrySettings | None = None,
) -> BranchSummaryResult:
    """Summarise abandoned entries: preamble + model text + file-operation block."""
    prep = prepare_branch_entries(entries.view, token_budget(model, reserve_tokens))
    if not prep.messages:
        return BranchSummaryResult(summary=NO_CONTENT_TO_SUMMARIZE)
    prompt = branch_prompt(
        serialize_agent_messages(prep.messages), custom_instructions, replace_instructions
    )
    options = StreamOptions(api_key=api_key, signal=signal, max_tokens=BRANCH_SUMMARY_MAX_TOKENS)
    reply = await summary_reply(model, prompt, options, retry)
    if reply.stop_reason == "aborted":
        return BranchSummaryResult(aborted=True)
    if reply.stop_reason == "error":
        return BranchSummaryResult(error=reply.error_message or "Summarization failed")
    read_files, modified_files = compute_file_lists(prep.file_ops)
    summary = BRANCH_SUMMARY_PREAMBLE + reply_text(reply)
    summary += format_file_operations(read_files, modified_files)
    return BranchSummaryResult(
        summary=summary or "No summary generated",
        read_files=read_files,
        modified_files=modified_files,
    )


@dataclass(frozen=True, slots=True)
class NavigationPlan:
    """Where the leaf goes for a target, and the text handed back to the composer."""

    new_leaf_id: str | None
    editor_text: str | None


def plan_navigation(target: SessionEntry) -> NavigationPlan:
    """A user or custom message target: leaf = its parent, its text to the composer."""
    if isinstance(target, MessageEntry) and isinstance(target.message, UserMessage):
        return NavigationPlan(target.parent_id, text_of(target.message.content))
    if isinstance(target, CustomMessageEntry):
        return NavigationPlan(target.parent_id, text_of(target.content))
    return NavigationPlan(target.id, None)
