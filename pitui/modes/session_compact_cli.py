"""``pitui session compact|navigate``: compaction and tree navigation without the TUI.

``--dry-run --json`` calls no model and prints what pi's code would summarise; the tests
compare that with pi's own answers. Without ``--dry-run`` the session file is changed in
place through the same functions the façade uses (an entry is appended; nothing else).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model
from pitui.core.compaction.apply import (
    NavigationError,
    NavigationRequest,
    compact_store,
    navigate_store,
    prepare_for_store,
)
from pitui.core.compaction.branch import (
    collect_entries_for_branch_summary,
    plan_navigation,
    prepare_branch_entries,
    token_budget,
)
from pitui.core.compaction.cut import CompactionPreparation
from pitui.core.compaction.files import compute_file_lists
from pitui.core.compaction.jsjson import dumps_js_safe
from pitui.core.compaction.serialize import serialize_agent_messages
from pitui.core.sanitize import inert, json_inert
from pitui.core.session.listing import resolve_session
from pitui.core.session.store import SessionStore
from pitui.core.settings import Settings, load_settings
from pitui.errors import ModelNotFoundError


def _require_file(args: argparse.Namespace) -> None:
    """Replace ``args.file`` (a path, or a session id or its start) by the file it names."""
    args.file = str(resolve_session(args.file, Path.cwd()))


def _print_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json_inert(dumps_js_safe(data, indent=1)) + "\n")


async def _model_for(
    store: SessionStore, spec: str | None, settings: Settings
) -> tuple[Model, str | None]:
    """The model (``--model``, else the session's, else the default) and its key."""
    registry = await ModelRegistry.load()
    model: Model | None = None
    if spec:
        model = registry.parse_model_arg(spec).model
    if model is None:
        ref = store.build_context().model
        model = registry.find(ref.provider, ref.model_id) if ref is not None else None
    if model is None:
        model = await registry.resolve_default(settings.default_provider, settings.default_model)
    api_key = await registry.get_api_key(model)
    if not api_key:
        raise ModelNotFoundError(f"No API key for {model.provider}")
    return model, api_key


# --------------------------------------------------------------------------- compact


def _compact_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pitui session compact", description="Summarise the older part of a session."
    )
    parser.add_argument("file", metavar="FILE|ID", help="a session file, or an id (prefix)")
    parser.add_argument("--leaf", metavar="ID", help="compact the branch ending here")
    parser.add_argument("--keep-recent-tokens", type=int, metavar="N")
    parser.add_argument("--reserve-tokens", type=int, metavar="N")
    parser.add_argument("--instructions", metavar="TEXT", help="additional focus")
    parser.add_argument("--model", metavar="PROVIDER/ID")
    parser.add_argument("--dry-run", action="store_true", help="call no model, write nothing")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def preparation_json(prep: CompactionPreparation) -> dict[str, Any]:
    """The dry-run report: what would be summarised and kept."""
    read_files, modified_files = compute_file_lists(prep.file_ops)
    view = prep.view
    return {
        "leafId": view.entry_id(len(view) - 1),
        "firstKeptEntryId": prep.first_kept_entry_id,
        "isSplitTurn": prep.is_split_turn,
        "tokensBefore": prep.tokens_before,
        "messagesToSummarizeCount": len(prep.summarize_indices),
        "turnPrefixMessagesCount": len(prep.turn_prefix_indices),
        "readFiles": read_files,
        "modifiedFiles": modified_files,
        "serialized": serialize_agent_messages(prep.messages_to_summarize()),
        "turnPrefixSerialized": serialize_agent_messages(prep.turn_prefix_messages()),
    }


async def _compact(args: argparse.Namespace) -> int:
    settings = (await load_settings(Path.cwd())).settings
    compaction = settings.compaction.model_copy()
    if args.keep_recent_tokens is not None:
        compaction.keep_recent_tokens = args.keep_recent_tokens
    if args.reserve_tokens is not None:
        compaction.reserve_tokens = args.reserve_tokens
    store = await SessionStore.open(args.file, read_only=args.dry_run)
    try:
        if args.leaf is not None:
            store.branch(args.leaf)
        prep = prepare_for_store(store, compaction)
        if args.dry_run:
            report = preparation_json(prep)
            if args.json:
                _print_json(report)
            else:
                _print_summary(report)
            return 0
        model, api_key = await _model_for(store, args.model, settings)
        result = await compact_store(
            store,
            compaction,
            model,
            api_key,
            args.instructions,
            preparation=prep,
            retry=settings.retry,
        )
        if args.json:
            _print_json(
                {
                    "id": store.get_leaf_id(),
                    "firstKeptEntryId": result.first_kept_entry_id,
                    "tokensBefore": result.tokens_before,
                    "summary": result.summary,
                    "details": result.details,
                }
            )
        else:
            sys.stdout.write(f"compacted: entry {store.get_leaf_id()}, ")
            sys.stdout.write(f"{result.tokens_before} tokens before\n{inert(result.summary)}\n")
        return 0
    finally:
        await store.close()


def _print_summary(report: dict[str, Any]) -> None:
    lines = [
        f"leaf:              {report['leafId']}",
        f"first kept entry:  {report['firstKeptEntryId']}",
        f"split turn:        {'yes' if report['isSplitTurn'] else 'no'}",
        f"tokens before:     {report['tokensBefore']}",
        f"to summarise:      {report['messagesToSummarizeCount']} messages",
        f"turn prefix:       {report['turnPrefixMessagesCount']} messages",
        f"read files:        {len(report['readFiles'])}",
        f"modified files:    {len(report['modifiedFiles'])}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")


def cmd_compact(argv: list[str]) -> int:
    """``pitui session compact FILE [--leaf ID] [--keep-recent-tokens N] … [--dry-run --json]``."""
    args = _compact_parser().parse_args(argv)
    _require_file(args)
    return asyncio.run(_compact(args))


# --------------------------------------------------------------------------- navigate


def _navigate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pitui session navigate", description="Move a session's leaf to another entry."
    )
    parser.add_argument("file", metavar="FILE|ID", help="a session file, or an id (prefix)")
    parser.add_argument("--to", required=True, metavar="ID", help="target entry")
    parser.add_argument("--from", dest="from_id", metavar="ID", help="old leaf (default: last)")
    parser.add_argument("--summarize", action="store_true", help="summarise the branch left")
    parser.add_argument("--instructions", metavar="TEXT", help="additional focus")
    parser.add_argument("--replace-instructions", action="store_true")
    parser.add_argument("--label", metavar="TEXT")
    parser.add_argument("--model", metavar="PROVIDER/ID")
    parser.add_argument("--dry-run", action="store_true", help="call no model, write nothing")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def navigation_json(
    store: SessionStore, target_id: str, model: Model | None, reserve_tokens: int
) -> dict[str, Any]:
    """The dry-run report of a navigation from the store's leaf to ``target_id``."""
    target = store.get_entry(target_id)
    if target is None:
        raise NavigationError(f"Entry {target_id} not found")
    entries = collect_entries_for_branch_summary(store.table, store.get_leaf_id(), target_id)
    prep = prepare_branch_entries(entries.view, token_budget(model, reserve_tokens))
    read_files, modified_files = compute_file_lists(prep.file_ops)
    plan = plan_navigation(target)
    view = entries.view
    return {
        "commonAncestorId": entries.common_ancestor_id,
        "entryIds": [view.entry_id(i) for i in range(len(view))],
        "readFiles": read_files,
        "modifiedFiles": modified_files,
        "serialized": serialize_agent_messages(prep.messages),
        "newLeafId": plan.new_leaf_id,
        "editorText": plan.editor_text,
    }


async def _navigate(args: argparse.Namespace) -> int:
    settings = (await load_settings(Path.cwd())).settings
    reserve = settings.branch_summary.reserve_tokens
    store = await SessionStore.open(args.file, read_only=args.dry_run)
    try:
        if args.from_id is not None:
            store.branch(args.from_id)
        if args.dry_run:
            model = None
            if args.model:
                model = (await ModelRegistry.load()).parse_model_arg(args.model).model
            _print_json(navigation_json(store, args.to, model, reserve))
            return 0
        model_key = await _model_for(store, args.model, settings) if args.summarize else None
        request = NavigationRequest(
            target_id=args.to,
            summarize=args.summarize,
            custom_instructions=args.instructions,
            replace_instructions=args.replace_instructions,
            label=args.label,
        )
        model, key = model_key if model_key else (None, None)
        result = await navigate_store(
            store, request, model, key, reserve_tokens=reserve, retry=settings.retry
        )
        report = {
            "newLeafId": store.get_leaf_id(),
            "editorText": result.editor_text,
            "summaryEntryId": result.summary_entry_id,
        }
        if args.json:
            _print_json(report)
        else:
            sys.stdout.write(f"leaf: {report['newLeafId']}\n")
            if result.editor_text is not None:
                sys.stdout.write(f"editor text: {inert(result.editor_text)}\n")
        return 0
    finally:
        await store.close()


def cmd_navigate(argv: list[str]) -> int:
    """``pitui session navigate FILE --to ID [--from ID] [--summarize] [--dry-run --json]``."""
    args = _navigate_parser().parse_args(argv)
    _require_file(args)
    return asyncio.run(_navigate(args))
