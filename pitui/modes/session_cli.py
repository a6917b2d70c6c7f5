"""``pitui session <command>``: inspect session files without the TUI.

The dispatcher imports a subcommand's handler only when that subcommand runs, so
``pitui session ls`` never pays for pydantic. A handler is ``"module:function"`` taking
the remaining arguments and returning the exit code; adding a subcommand is one line in
:data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pitui.core.sanitize import inert, json_inert
from pitui.core.session.bulk import bulk_allocation
from pitui.errors import PituiError

#: name → ("module:function", one-line help). Handlers take argv and return an exit code.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ls": ("pitui.modes.session_cli:cmd_ls", "list sessions, newest first"),
    "tree": ("pitui.modes.session_inspect:cmd_tree", "show a session's entry tree"),
    "context": ("pitui.modes.session_inspect:cmd_context", "show what the model would receive"),
    "check": ("pitui.modes.session_inspect:cmd_check", "validate a session file (and repair)"),
    "compact": ("pitui.modes.session_compact_cli:cmd_compact", "compact a session"),
    "navigate": ("pitui.modes.session_compact_cli:cmd_navigate", "move a session's leaf"),
    "import": ("pitui.modes.session_import_cli:cmd_import", "copy a session file into the store"),
    "files": ("pitui.modes.session_files_cli:cmd_files", "what differs from a point's files"),
    "restore": ("pitui.modes.session_files_cli:cmd_restore", "restore a point's files"),
    "checkpoints": ("pitui.modes.session_files_cli:cmd_checkpoints", "the checkpoint store"),
}


def _usage() -> str:
    rows = "\n".join(f"  {name:<11} {text}" for name, (_, text) in SUBCOMMANDS.items())
    return f"usage: pitui session <command> [options]\n\ncommands:\n{rows}\n"


def _handler(name: str) -> Callable[[list[str]], int] | None:
    target, _ = SUBCOMMANDS[name]
    module_name, function = target.split(":")
    try:
        # Importing a handler builds tens of thousands of objects (pydantic models) and
        # no garbage: the collector's passes over them would find nothing.
        with bulk_allocation():
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None
    handler: Callable[[list[str]], int] = getattr(module, function)
    return handler


def main(argv: list[str]) -> int:
    """Run ``pitui session`` with ``argv`` (the words after ``session``)."""
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(_usage())
        return 0 if argv else 2
    name = argv[0]
    if name not in SUBCOMMANDS:
        sys.stderr.write(f"pitui session: unknown command {name!r}\n\n{_usage()}")
        return 2
    handler = _handler(name)
    if handler is None:
        sys.stderr.write(f"pitui session: {name} is not available in this build\n")
        return 2
    try:
        return handler(argv[1:])
    except PituiError as exc:
        sys.stderr.write(f"pitui session {name}: {inert(exc.title)}: {inert(exc.message)}\n")
        return 1


# --------------------------------------------------------------------------- ls


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def cmd_ls(argv: list[str]) -> int:
    """``pitui session ls [--all] [--json] [--paths] [--session-dir DIR] [--no-cache]``."""
    from pitui.core.session.listing import list_sessions

    parser = argparse.ArgumentParser(prog="pitui session ls", description="List sessions.")
    parser.add_argument("--all", action="store_true", help="sessions of every project")
    parser.add_argument("--json", action="store_true", help="a JSON array (with each path)")
    parser.add_argument("--paths", action="store_true", help="end each row with its file")
    parser.add_argument("--session-dir", metavar="DIR", help="session files are in DIR")
    parser.add_argument("--no-cache", action="store_true", help="read every file afresh")
    args = parser.parse_args(argv)
    directory = Path(args.session_dir) if args.session_dir else None
    sessions = list_sessions(
        session_dir=directory, all_projects=args.all, use_cache=not args.no_cache
    )
    if args.json:
        payload = [s.to_json() for s in sessions]
        sys.stdout.write(json_inert(json.dumps(payload, ensure_ascii=False, indent=1)) + "\n")
        return 0
    lines = []
    for info in sessions:
        when = datetime.fromtimestamp(info.modified_ms / 1000).strftime("%Y-%m-%d %H:%M")
        title = _one_line(info.name or info.first_message, 60)
        where = f"  {info.cwd}" if args.all else ""
        file = f"  {info.path}" if args.paths else ""
        row = f"{when}  {info.id[:8]}  {info.message_count:>5} msgs  {title}{where}{file}"
        lines.append(row)
    sys.stdout.write(inert("".join(line + "\n" for line in lines)))
    if not sessions:
        sys.stderr.write("no sessions\n")
    return 0
