"""pitui's command-line flags, written once: the argparse parser is built from them, and
the simple command lines a script runs (``pitui -p --model M "prompt"``) are read from
them without argparse.

argparse cost a ``pitui -p`` turn ~11 M instructions (1.4 %): its import (with
``gettext`` and ``locale``), building the parser (each ``add_argument`` formats its
help once to check it) and parsing. :func:`simple_arguments` reads a command line only
when what argparse would make of it is certain: every flag spelled out in full and known
here, each value a separate word that does not start with ``-`` (and one of the
choices, if the flag has them), all of the prompt's words at the end. Anything else
(``--help``, an abbreviation, ``--flag=value``, an error to report…) goes to argparse,
as before; a test compares the two on many command lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pitui import __version__

if TYPE_CHECKING:
    import argparse

VERSION_TEXT = f"pitui {__version__}"


class Option:
    """One ``add_argument`` call: its flags (or positional name) and keywords."""

    __slots__ = ("flags", "kwargs")

    def __init__(self, *flags: str, **kwargs: Any) -> None:
        self.flags = flags
        self.kwargs = kwargs

    @property
    def dest(self) -> str:
        """The attribute argparse stores it in (its rule: the first long flag)."""
        if "dest" in self.kwargs:
            return str(self.kwargs["dest"])
        long = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return long.lstrip("-").replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    Option("--version", action="version", version=VERSION_TEXT),
    Option("messages", nargs="*", help="initial prompt (with -p: the prompt)"),
    Option("-p", "--print", action="store_true", help="print mode: answer and exit"),
    Option("--mode", choices=["text", "json"], default="text", help="output mode"),
    Option(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the most recent session",
    ),
    Option("-r", "--resume", action="store_true", help="pick a session to resume"),
    Option(
        "--session", metavar="FILE|ID", help="use this session file, or the session with this id"
    ),
    Option("--session-dir", metavar="DIR", help="directory for session files"),
    Option("--no-session", action="store_true", help="do not save the session"),
    Option(
        "--no-checkpoints",
        action="store_true",
        help="take no checkpoints of the project's files (setting checkpoints.enabled)",
    ),
    Option(
        "--read-only",
        action="store_true",
        help="open the session (--session / -c) without ever writing to it",
    ),
    Option("--model", metavar="PROVIDER/ID[:THINKING]", help="model to use"),
    Option("--provider", help="provider of --model when it has no prefix"),
    Option(
        "--thinking",
        choices=["off", "minimal", "low", "medium", "high", "xhigh"],
        help="thinking level",
    ),
    Option(
        "--tools",
        metavar="LIST",
        help="comma-separated tool names to enable (mcp__ patterns filter MCP tools)",
    ),
    Option(
        "--exclude-tools", metavar="LIST", help="comma-separated tool names or patterns to remove"
    ),
    Option("--no-mcp", action="store_true", help="no MCP servers for this run"),
    Option(
        "--approve",
        choices=["ask", "workspace", "edits", "all", "none"],
        help="permission policy (default: workspace in print mode, else approval.mode)",
    ),
    Option(
        "--trust-project",
        action="store_true",
        help="load this project's skills and prompt templates for this run (they are "
        "instructions from the repository; skipped until the project is trusted)",
    ),
    Option("--system-prompt", metavar="TEXT", help="replace the system prompt"),
    Option("--append-system-prompt", metavar="TEXT", help="append to the system prompt"),
    Option("--theme", metavar="NAME", help="theme name"),
    Option(
        "--list-models",
        nargs="?",
        const="",
        metavar="SEARCH",
        help="list models (optionally matching SEARCH) and exit",
    ),
    Option("--api-key", metavar="KEY", help="API key for this run"),
    Option(
        "--export",
        metavar="SESSION",
        help="export SESSION (a .jsonl file, or a session id or its start) to HTML and exit; "
        "an OUT argument after it picks the file (.html, .md or .jsonl)",
    ),
)
"""In the order of ``--help`` (pi's flag names wherever pi has the flag)."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``pitui``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="pitui",
        description="A full-screen terminal client for LLM coding agents.",
        epilog="Subcommands: pitui session {ls,tree,context,check,compact,navigate,import,"
        "files,restore,checkpoints} --help; pitui mcp {add,remove,list,trust} --help; "
        "pitui trust [DIR] [--revoke | --status]",
    )
    for option in OPTIONS:
        parser.add_argument(*option.flags, **option.kwargs)
    return parser


_Simple = tuple[str, bool, frozenset[str] | None]
"""(dest, takes a value, its choices)"""
_simple: dict[str, _Simple] | None = None
_defaults: dict[str, Any] = {}


def _simple_flags() -> dict[str, _Simple]:
    """Flag → how to read it, for the flags :func:`simple_arguments` reads (plain
    ``store_true`` and one-value options); the defaults of every option."""
    global _simple
    if _simple is None:
        _simple = {}
        for option in OPTIONS:
            action = option.kwargs.get("action")
            if option.flags[0].startswith("-") and action != "version":  # it stores none
                default = False if action == "store_true" else option.kwargs.get("default")
                _defaults[option.dest] = default
            if action not in (None, "store_true") or "nargs" in option.kwargs:
                continue  # --version, the prompt's words, --list-models [SEARCH]
            choices = option.kwargs.get("choices")
            spec = (option.dest, action is None, frozenset(choices) if choices else None)
            for flag in option.flags:
                _simple[flag] = spec
    return _simple


def simple_arguments(argv: Sequence[str]) -> dict[str, Any] | None:
    """The attributes argparse would give ``argv``, when it is a simple command line (see
    the module's docstring); None when only argparse can tell."""
    flags = _simple_flags()
    values = dict(_defaults)
    index = 0
    while index < len(argv) and argv[index].startswith("-"):
        spec = flags.get(argv[index])
        if spec is None:
            return None
        dest, takes_value, choices = spec
        if not takes_value:
            values[dest] = True
            index += 1
            continue
        if index + 1 == len(argv):
            return None
        value = argv[index + 1]
        if value.startswith("-") or (choices is not None and value not in choices):
            return None
        values[dest] = value
        index += 2
    words = list(argv[index:])
    if any(word.startswith("-") for word in words):
        return None
    values["messages"] = words
    return values
