"""Command-line entry point: parse arguments, then hand over to a mode.

Kept import-light: ``pitui --version`` and ``--help`` must answer without importing
textual, pydantic models or any provider. Each mode is imported only when chosen.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from pitui.cli_options import VERSION_TEXT, build_parser, simple_arguments

if TYPE_CHECKING:
    import argparse

__all__ = ["VERSION_TEXT", "build_parser", "main"]

PRINT_MODE = "pitui.modes.print_mode"

# Subcommands that take over the rest of the command line: name → module with main(argv).
SUBCOMMANDS = {
    "session": "pitui.modes.session_cli",
    "mcp": "pitui.modes.mcp_cli",
    "trust": "pitui.modes.trust_cli",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run pitui; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list == ["--version"]:  # scripts probe it: answered without loading argparse
        print(VERSION_TEXT)
        return 0
    if args_list and args_list[0] in SUBCOMMANDS:
        _inert_output()
        _compile_once()
        module = importlib.import_module(SUBCOMMANDS[args_list[0]])
        code: int = module.main(args_list[1:])
        if argv is None:
            # This process's own command line: it ends now. The interpreter's last
            # collection would walk every object the command built (a 100k-entry
            # session's table) only to free memory the OS takes back anyway.
            gc.freeze()
            if args_list[0] == "session":
                # Nor is it freed: what a session command built (``session context``
                # keeps its report, see pitui.modes.session_inspect) is ~90 ms of
                # deallocation on a 100k-entry file. Session files are flushed at every
                # write (pitui.core.session.writer), as print mode relies on too.
                _end_process(code)
        return code
    args = _parse(args_list)
    module_name = _mode_module(args)
    code = _run_mode(module_name, args)
    if argv is None and module_name == PRINT_MODE:
        _end_process(code)
    return code


def _parse(args_list: list[str]) -> argparse.Namespace:
    """The command line's flags: a simple print-mode or TUI command line (a bare
    ``pitui``) is read without argparse (:func:`pitui.cli_options.simple_arguments`,
    ~11 M instructions of a start), any other by it."""
    simple = simple_arguments(args_list)
    if simple is not None:
        args = SimpleNamespace(**simple)
        if _mode_module(args) in (PRINT_MODE, "pitui.ui.launch"):
            # The modes read the flags as attributes, nothing more.
            return cast("argparse.Namespace", args)
    return build_parser().parse_args(args_list)


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


def _mode_module(args: argparse.Namespace | SimpleNamespace) -> str:
    """The module whose ``run(args)`` serves this command line."""
    if args.list_models is not None:
        return "pitui.modes.models_cli"
    if args.export is not None:
        return "pitui.modes.export_cli"
    if args.print or args.mode == "json" or not sys.stdin.isatty():
        return PRINT_MODE
    return "pitui.ui.launch"  # Textual draws the screen; it makes its text inert


def _compile_once() -> None:
    """Before pydantic and Textual load: the source their dataclasses and string
    annotations generate is compiled once per machine, not on every start (~130 M
    instructions of a print turn; see pitui.compile_cache), and so are the regular
    expressions the libraries compile as they load (see pitui.regex_cache)."""
    from pitui import regex_cache

    regex_cache.install()  # first: the compile cache's imports (inspect …) compile patterns

    from pitui.compile_cache import install

    install()


def _run_mode(module_name: str, args: argparse.Namespace) -> int:
    if module_name == PRINT_MODE:
        gc.disable()  # until the session is ready (see pitui.modes.print_mode.run)
        _compile_once()
        from pitui.asyncio_import import import_asyncio

        import_asyncio()  # without ssl until a TLS connection needs it (~25 M)
    elif module_name == "pitui.ui.launch":
        # The TUI runs without garbage collection until its first frame (see
        # pitui.ui.launch.run). Pause it already for the imports: loading Textual allocates
        # hundreds of thousands of objects and triggers ~90 collections that find next
        # to nothing (~4% of the start-up work).
        gc.disable()
        from pitui.ui.early_terminal import take_keys_early

        take_keys_early()  # before Textual loads: keys typed meanwhile stay keys
        _compile_once()  # ~75 M instructions of the first frame
        from pitui.ui.subclassing import install

        install()  # before the widget classes are created
        from pitui.ui import strip_caches

        strip_caches.install()  # before the first strip is made
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
