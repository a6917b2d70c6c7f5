"""Arguments of a prompt-template command and their substitution, as pi does them.

Arguments split like a shell's, with pi's simplifications: a quote starts quoting only
at the beginning of an argument (``doesn't`` stays one word), a quote never closed is
kept as text, and inside quotes a backslash before the same quote keeps that quote
(any other backslash stays as typed).

Substitutions: ``$1``…, ``$@`` / ``$ARGUMENTS`` (all, joined with spaces),
``${1:-default}`` / ``${@:-default}`` (a default for an empty value), ``${@:N}`` (from
the N-th on) and ``${@:N:L}`` (L of them). One pass: substituted text is not scanned again.
"""

from __future__ import annotations

import re

from pitui.lazy_pattern import lazy_pattern

_PLACEHOLDER = lazy_pattern(
    r"\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)"
)


def parse_command_args(text: str) -> list[str]:
    """Split ``text`` into arguments (see the module docstring for the rules)."""
    args: list[str] = []
    current = ""
    has_token = False
    quote: str | None = None
    quote_start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if quote is not None:
            if char == "\\" and text[i + 1 : i + 2] == quote:
                current += quote
                i += 1
            elif char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'" and not has_token:
            quote, quote_start, has_token = char, i, True
        elif char.isspace():
            if has_token:
                args.append(current)
                current, has_token = "", False
        else:
            current += char
            has_token = True
        if quote is not None and i == len(text) - 1:
            # Never closed: the quote was a plain character; read on from just after it.
            quote, current, i = None, text[quote_start], quote_start
        i += 1
    if has_token:
        args.append(current)
    return args


def substitute_args(content: str, args: list[str]) -> str:
    """``content`` with every placeholder replaced from ``args``."""
    joined = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        default_target, default, slice_start, slice_length, simple = match.groups()
        if default_target is not None:
            if default_target in ("@", "ARGUMENTS"):
                value = joined
            else:
                value = _nth(args, int(default_target))
            return value or default
        if slice_start is not None:
            start = max(int(slice_start) - 1, 0)
            if slice_length is not None:
                return " ".join(args[start : start + int(slice_length)])
            return " ".join(args[start:])
        if simple in ("@", "ARGUMENTS"):
            return joined
        return _nth(args, int(simple))

    return _PLACEHOLDER.sub(replace, content)


def _nth(args: list[str], position: int) -> str:
    """The 1-based ``position``-th argument, or "" (``$0`` is always empty, as in pi)."""
    return args[position - 1] if 1 <= position <= len(args) else ""
