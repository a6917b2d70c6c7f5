"""Compacting and navigating a session store (the parts of pi's AgentSession that touch
only the session): checks with pi's error texts, the model calls, the entries written.

:class:`pitui.core.session_compaction.SessionCompaction` (the façade's part) and
``pitui session compact / navigate`` both go through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitui.ai.abort import AbortSignal
from pitui.ai.types import Model
from pitui.core.compaction.branch import (
    collect_entries_for_branch_summary,
    generate_branch_summary,
    plan_navigation,
)
from pitui.core.compaction.cut import CompactionPreparation, path_view, prepare_compaction
from pitui.core.compaction.summarize import (
    CompactionCancelled,
    CompactionError,
    CompactionResult,
    compact,
)
from pitui.core.session.store import SessionStore
from pitui.core.settings import CompactionSettings, RetrySettings
from pitui.errors import PituiError

ALREADY_COMPACTED = "Already compacted"
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"


class NavigationError(PituiError):
    """A tree navigation was refused or its summary failed."""

    title = "Navigation failed"


def prepare_for_store(
    store: SessionStore, settings: CompactionSettings, leaf_id: str | None = None
) -> CompactionPreparation:
    """The compaction of the branch ending at ``leaf_id`` (default: the current leaf).

    Raises:
        CompactionError: ``Already compacted`` / ``Nothing to compact (session too small)``.
    """
    view = path_view(store.table, leaf_id if leaf_id is not None else store.get_leaf_id())
    preparation = prepare_compaction(view, settings)
    if preparation is None:
        if view.kinds and view.kinds[-1] == "compaction":
            raise CompactionError(ALREADY_COMPACTED)
        raise CompactionError(NOTHING_TO_COMPACT)
    return preparation


async def compact_store(
    store: SessionStore,
    settings: CompactionSettings,
    model: Model,
    api_key: str | None,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
    preparation: CompactionPreparation | None = None,
    retry: RetrySettings | None = None,
) -> CompactionResult:
    """Summarise the current branch and append the ``compaction`` entry at the leaf.

    Nothing is written unless the summary succeeded and ``signal`` was not aborted.

    Raises:
        CompactionError: pi's texts (already compacted, too small, summarisation failed).
        CompactionCancelled: aborted.
    """
    prep = preparation or prepare_for_store(store, settings)
    result = await compact(prep, model, api_key, custom_instructions, signal, retry)
    if signal is not None and signal.aborted:
        raise CompactionCancelled("Compaction cancelled")
    await store.append_compaction(
        result.summary,
        result.first_kept_entry_id,
        result.tokens_before,
        details=result.details,
        from_hook=False,
    )
    return result


@dataclass
class NavigationResult:
    """pi's ``navigateTree`` result (plus where the leaf went)."""

    editor_text: str | None = None
    cancelled: bool = False
    aborted: bool = False
    summary_entry_id: str | None = None
    new_leaf_id: str | None = None


@dataclass
class NavigationRequest:
    """What to do when moving the leaf to ``target_id``."""

    target_id: str
    summarize: bool = False
    custom_instructions: str | None = None
    replace_instructions: bool = False
    label: str | None = None


async def _summarize_branch(
    store: SessionStore,
    request: NavigationRequest,
    model: Model,
    api_key: str | None,
    signal: AbortSignal | None,
    reserve_tokens: int,
    retry: RetrySettings | None,
) -> tuple[str, dict[str, list[str]]] | None:
    """(summary, details) of the abandoned branch; None when aborted."""
    entries = collect_entries_for_branch_summary(
        store.table, store.get_leaf_id(), request.target_id
    )
    if not len(entries.view):
        return "", {}
    if not api_key:
        raise NavigationError(f"No API key for {model.provider}")
    result = await generate_branch_summary(
        entries,
        model,
        api_key,
        signal,
        request.custom_instructions,
        request.replace_instructions,
        reserve_tokens,
        retry,
    )
    if result.aborted:
        return None
    if result.error is not None:
        raise NavigationError(result.error)
    details = {"readFiles": result.read_files or [], "modifiedFiles": result.modified_files or []}
    return result.summary or "", details


async def navigate_store(
    store: SessionStore,
    request: NavigationRequest,
    model: Model | None = None,
    api_key: str | None = None,
    signal: AbortSignal | None = None,
    reserve_tokens: int = 16384,
    retry: RetrySettings | None = None,
) -> NavigationResult:
    """pi's ``navigateTree`` on a store: summary (optional), new leaf, label.

    Raises:
        NavigationError: unknown target, no model for a summary, summarisation error.
    """
    if request.target_id == store.get_leaf_id():
        return NavigationResult(new_leaf_id=request.target_id)
    if request.summarize and model is None:
        raise NavigationError("No model available for summarization")
    target = store.get_entry(request.target_id)
    if target is None:
        raise NavigationError(f"Entry {request.target_id} not found")
    summary: str = ""
    details: dict[str, list[str]] = {}
    if request.summarize and model is not None:
        outcome = await _summarize_branch(
            store, request, model, api_key, signal, reserve_tokens, retry
        )
        if outcome is None:
            return NavigationResult(cancelled=True, aborted=True)
        summary, details = outcome
    plan = plan_navigation(target)
    result = NavigationResult(editor_text=plan.editor_text, new_leaf_id=plan.new_leaf_id)
    if summary:
        result.summary_entry_id = await store.branch_with_summary(
            plan.new_leaf_id, summary, details, from_hook=False
        )
        if request.label:
            await store.set_label(result.summary_entry_id, request.label)
    elif plan.new_leaf_id is None:
        store.reset_leaf()
    else:
        store.branch(plan.new_leaf_id)
    if request.label and not summary:
        await store.set_label(request.target_id, request.label)
    return result
