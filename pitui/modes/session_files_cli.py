"""``pitui session files|restore|checkpoints``: a session's checkpoints without the TUI.

``files`` lists (``--diff``: diffs) what differs between a point of the tree and the
project now; ``restore`` makes the project's files a point's, after checkpointing them
(the pre-restore checkpoint is on disk before the first file is written);
``checkpoints`` shows the project's store and ``--prune`` collects what no session names.
Both ``files`` and ``restore`` work only from the session's own project folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.errors import CheckpointError
from pitui.core.checkpoints.file_diffs import file_diffs
from pitui.core.checkpoints.points import Point
from pitui.core.checkpoints.prune import prune
from pitui.core.checkpoints.session_files import Comparison, SessionFiles
from pitui.core.checkpoints.store import Limits, require_store
from pitui.core.sanitize import inert, json_inert
from pitui.core.session.entry_ids import resolve_entry_id
from pitui.core.session.listing import resolve_session
from pitui.core.session.store import SessionStore
from pitui.core.settings import load_settings

_KIND_MARK = {"added": "A", "deleted": "D", "modified": "M"}


def _parser(name: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"pitui session {name}", description=description)
    parser.add_argument("file", metavar="FILE|ID", help="a session file, or its id (prefix)")
    parser.add_argument("--session-dir", metavar="DIR", help="look ids up under DIR")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


async def _open(args: argparse.Namespace, *, writable: bool) -> tuple[SessionStore, SessionFiles]:
    """The session (its project must be the current folder) and its checkpoints."""
    path = resolve_session(args.file, Path(args.session_dir) if args.session_dir else None)
    store = await SessionStore.open(path, read_only=not writable)
    try:
        here = _session_folder(store.cwd)
        require_store(here)
    except CheckpointError:
        await store.close()
        raise
    options = (await load_settings(here)).settings.checkpoints
    limits = Limits(max_file_bytes=options.max_file_bytes, max_files=options.max_files)
    return store, SessionFiles(CheckpointEngine(here, limits), store)


def _session_folder(cwd: str) -> Path:
    """The current folder, which must be the session's project."""
    here = Path.cwd().resolve()
    if not cwd or Path(cwd).resolve() != here:
        raise CheckpointError(
            f"This session's project is {cwd or '(none)'}, not the current folder {here}: "
            "run this command from the session's project folder"
        )
    return here


def _point(files: SessionFiles, store: SessionStore, text: str | None) -> Point:
    entry_id = resolve_entry_id(store.table, text) if text else store.get_leaf_id()
    point = files.point_for(entry_id) if entry_id else None
    if point is None:
        raise CheckpointError(
            f"No checkpoint is known for entry {entry_id} (it comes before the first "
            "checkpoint of its branch, or checkpoints were off)"
        )
    return point


def _print_json(data: Any) -> None:
    sys.stdout.write(json_inert(json.dumps(data, ensure_ascii=False, indent=1)) + "\n")


def _changes_json(comparison: Comparison) -> list[dict[str, str]]:
    return [{"path": c.path, "kind": c.kind} for c in comparison.changes]


def _list_text(comparison: Comparison) -> str:
    rows = [f"{_KIND_MARK[c.kind]} {c.path}" for c in comparison.changes]
    count = comparison.count
    head = f"{count} file{' differs' if count == 1 else 's differ'} from checkpoint "
    head += f"{comparison.point.entry_id} (A: restoring creates it, D: deletes it)"
    return inert("\n".join([head, *rows]) + "\n")


# --------------------------------------------------------------------------- files


async def _files(args: argparse.Namespace) -> int:
    store, files = await _open(args, writable=False)
    try:
        comparison = await files.compare(_point(files, store, args.at))
        diffs = await file_diffs(files.engine, comparison.changes) if args.diff else []
    finally:
        await store.close()
    if args.json:
        report: dict[str, Any] = {
            "checkpoint": comparison.point.entry_id,
            "tree": comparison.point.tree,
            "count": comparison.count,
            "changes": _changes_json(comparison),
        }
        if args.diff:
            report["diffs"] = [d.to_json() for d in diffs]
        _print_json(report)
        return 0
    sys.stdout.write(_list_text(comparison))
    sys.stdout.write(inert("".join(d.patch for d in diffs)))
    return 0


def cmd_files(argv: list[str]) -> int:
    """``pitui session files FILE [--at ENTRY] [--diff] [--json]``."""
    parser = _parser("files", "What differs between a point's files and the project now.")
    parser.add_argument("--at", metavar="ENTRY", help="the point (default: the leaf)")
    parser.add_argument("--diff", action="store_true", help="show each file's diff")
    return asyncio.run(_files(parser.parse_args(argv)))


# --------------------------------------------------------------------------- restore


async def _restore(args: argparse.Namespace) -> int:
    store, files = await _open(args, writable=not args.dry_run)
    try:
        point = _point(files, store, args.to)
        if args.dry_run:
            comparison = await files.compare(point)
            if args.json:
                _print_json(
                    {
                        "dryRun": True,
                        "checkpoint": point.entry_id,
                        "changes": _changes_json(comparison),
                    }
                )
            else:
                sys.stdout.write(_list_text(comparison))
            return 0
        result = await files.restore(point)
    finally:
        await store.close()
    outcome = result.outcome
    if args.json:
        _print_json(
            {
                "dryRun": False,
                "checkpoint": point.entry_id,
                "tree": point.tree,
                "preRestore": {
                    "entryId": result.pre_restore.entry_id,
                    "tree": result.pre_restore.tree,
                },
                "outside": result.outside,
                "written": outcome.written,
                "deleted": outcome.deleted,
                "skipped": [{"path": p, "reason": why} for p, why in outcome.skipped],
            }
        )
    else:
        sys.stdout.write(inert(result.summary()) + "\n")
        for path, why in outcome.skipped:
            sys.stdout.write(inert(f"  left alone: {path} ({why})") + "\n")
    return 0


def cmd_restore(argv: list[str]) -> int:
    """``pitui session restore FILE --to ENTRY [--dry-run] [--json]``."""
    parser = _parser("restore", "Make the project's files a point's (saving them first).")
    parser.add_argument("--to", required=True, metavar="ENTRY", help="the point to restore")
    parser.add_argument("--dry-run", action="store_true", help="only list what would change")
    return asyncio.run(_restore(parser.parse_args(argv)))


# --------------------------------------------------------------------------- checkpoints


async def _checkpoints(args: argparse.Namespace) -> int:
    here = Path.cwd().resolve()
    engine = CheckpointEngine(here)
    if not engine.store.exists():
        raise CheckpointError(f"No checkpoint store for {here} (no checkpoint taken here yet)")
    if not args.prune:
        state = await asyncio.to_thread(engine.store.read_state)
        report = {
            "project": str(here),
            "store": str(engine.store.git_dir),
            "sessions": state.get("sessions", []),
            "lastPrune": state.get("lastPrune"),
        }
        if args.json:
            _print_json(report)
        else:
            sys.stdout.write(inert(f"store: {report['store']}\n"))
        return 0
    result = await prune(engine)
    if args.json:
        _print_json(
            {"sessions": result.sessions, "trees": result.trees, "storeBytes": result.store_bytes}
        )
    else:
        size_mb = result.store_bytes / (1024 * 1024)
        sys.stdout.write(
            f"kept {result.trees} checkpoints named by {result.sessions} "
            f"sessions; store is {size_mb:.1f} MB\n"
        )
    return 0


def cmd_checkpoints(argv: list[str]) -> int:
    """``pitui session checkpoints [--prune] [--json]`` (the current folder's store)."""
    parser = argparse.ArgumentParser(
        prog="pitui session checkpoints", description="The current folder's checkpoint store."
    )
    parser.add_argument("--prune", action="store_true", help="collect unreferenced checkpoints")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return asyncio.run(_checkpoints(parser.parse_args(argv)))
