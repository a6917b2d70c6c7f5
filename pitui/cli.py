"""Command-line entry point: parse arguments, then hand over to a mode.

Kept import-light: ``pitui --version`` and ``--help`` must answer without importing
textual, pydantic models or any provider. Each mode is imported only when chosen.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from pitui import __version__

VERSION_TEXT = f"pitui {__version__}"

PRINT_MODE = "pitui.modes.print_mode"

# Subcommands that take over the rest of the command line: name → module with main(argv).
SUBCOMMANDS = {
    "session": "pitui.modes.session_cli",
    "mcp": "pitui.modes.mcp_cli",
    "trust": "pitui.modes.trust_cli",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``pitui`` (pi's flag names wherever pi has the flag)."""
    parser = argparse.ArgumentParser(
        prog="pitui",
        description="A full-screen terminal client for LLM coding agents.",
        epilog="Subcommands: pitui session {ls,tree,context,check,compact,navigate,import,"
        "files,restore,checkpoints} --help; pitui mcp {add,remove,list,trust} --help; "
        "pitui trust [DIR] [--revoke | --status]",
    )
    parser.add_argument("--version", action="version", version=VERSION_TEXT)
    parser.add_argument("messages", nargs="*", help="initial prompt (with -p: the prompt)")
    parser.add_argument("-p", "--print", action="store_true", help="print mode: answer and exit")
    parser.add_argument("--mode", choices=["text", "json"], default="text", help="output mode")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the most recent session",
    )
    parser.add_argument("-r", "--resume", action="store_true", help="pick a session to resume")
    parser.add_argument(
        "--session", metavar="FILE|ID", help="use this session file, or the session with this id"
    )
    parser.add_argument("--session-dir", metavar="DIR", help="directory for session files")
    parser.add_argument("--no-session", action="store_true", help="do not save the session")
    parser.add_argument(
        "--no-checkpoints",
        action="store_true",
        help="take no checkpoints of the project's files (setting checkpoints.enabled)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="open the session (--session / -c) without ever writing to it",
    )
    parser.add_argument("--model", metavar="PROVIDER/ID[:THINKING]", help="model to use")
    parser.add_argument("--provider", help="provider of --model when it has no prefix")
    parser.add_argument(
        "--thinking",
        choices=["off", "minimal", "low", "medium", "high", "xhigh"],
        help="thinking level",
    )
    parser.add_argument(
        "--tools",
        metavar="LIST",
        help="comma-separated tool names to enable (mcp__ patterns filter MCP tools)",
    )
    parser.add_argument(
        "--exclude-tools", metavar="LIST", help="comma-separated tool names or patterns to remove"
    )
    parser.add_argument("--no-mcp", action="store_true", help="no MCP servers for this run")
    parser.add_argument(
        "--approve",
        choices=["ask", "workspace", "edits", "all", "none"],
        help="permission policy (default: workspace in print mode, else approval.mode)",
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="load this project's skills and prompt templates for this run (they are "
        "instructions from the repository; skipped until the project is trusted)",
    )
    parser.add_argument("--system-prompt", metavar="TEXT", help="replace the system prompt")
    parser.add_argument(
        "--append-system-prompt", metavar="TEXT", help="append to the system prompt"
    )
    parser.add_argument("--theme", metavar="NAME", help="theme name")
    parser.add_argument(
        "--list-models",
        nargs="?",
        const="",
        metavar="SEARCH",
        help="list models (optionally matching SEARCH) and exit",
    )
    parser.add_argument("--api-key", metavar="KEY", help="API key for this run")
    parser.add_argument(
        "--export",
        metavar="SESSION",
        help="export SESSION (a .jsonl file, or a session id or its start) to HTML and exit; "
        "an OUT argument after it picks the file (.html, .md or .jsonl)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run pitui; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list == ["--version"]:  # scripts probe it: answered without loading argparse
        print(VERSION_TEXT)
        return 0
    if args_list and args_list[0] in SUBCOMMANDS:
        _inert_output()
        module = importlib.import_module(SUBCOMMANDS[args_list[0]])
        code: int = module.main(args_list[1:])
        if argv is None:
            # This process's own command line: it ends now. The interpreter's last
            # collection would walk every object the command built (a 100k-entry
            # session's table) only to free memory the OS takes back anyway.
            gc.freeze()
        return code
    args = build_parser().parse_args(args_list)
    module_name = _mode_module(args)
    code = _run_mode(module_name, args)
    if argv is None and module_name == PRINT_MODE:
        _end_process(code)
    return code


def _end_process(code: int) -> None:
    """End this process now, as its last step (print mode, whose run is over).

    The exit functions run and the output is flushed, as at any exit; what is skipped is
    the interpreter's teardown of every module and object, ~12 M instructions of a
    ``pitui -p`` turn spent on memory the OS takes back anyway. Returns (and the usual
    exit follows) when the output cannot be flushed, so the interpreter reports that as
    it always does, or when a thread is still running, for the interpreter to wait for.
    """
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _mode_module(args: argparse.Namespace) -> str:
    """The module whose ``run(args)`` serves this command line."""
    if args.list_models is not None:
        return "pitui.modes.models_cli"
    if args.export is not None:
        return "pitui.modes.export_cli"
    if args.print or args.mode == "json" or not sys.stdin.isatty():
        return PRINT_MODE
    return "pitui.ui.launch"  # Textual draws the screen; it makes its text inert


def _run_mode(module_name: str, args: argparse.Namespace) -> int:
    if module_name == PRINT_MODE:
        gc.disable()  # until the session is ready (see pitui.modes.print_mode.run)
        # Before pydantic loads: its dataclasses' and annotations' generated source is
        # compiled once per machine, not on every start (~125 M instructions a turn).
        from pitui.compile_cache import install

        install()
    elif module_name == "pitui.ui.launch":
        # The TUI runs without garbage collection until its first frame (see
        # pitui.ui.launch.run). Pause it already for the imports: loading Textual allocates
        # hundreds of thousands of objects and triggers ~90 collections that find next
        # to nothing (~4% of the start-up work).
        gc.disable()
        from pitui.ui.early_terminal import take_keys_early

        take_keys_early()  # before Textual loads: keys typed meanwhile stay keys
    if module_name != "pitui.ui.app":
        _inert_output()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(f"pitui: {module_name} is not available in this build", file=sys.stderr)
        return 2
    code: int = module.run(args)
    return code


def _inert_output() -> None:
    """Route every line the CLI prints through the one sanitizer (issue 21: a session
    label printed raw by ``pitui session tree`` could write the clipboard)."""
    from pitui.core.sanitize import InertStream

    sys.stdout = InertStream(sys.stdout)
    sys.stderr = InertStream(sys.stderr)
