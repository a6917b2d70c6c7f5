"""Command-line ``@file`` arguments, as pi reads them: every argument starting with ``@``
is a file to attach (a bare ``@`` is text)."""

from __future__ import annotations


def split_file_arguments(messages: list[str]) -> tuple[list[str], list[str]]:
    """``(files, prompts)`` of the command line's message arguments."""
    files = [m[1:] for m in messages if m.startswith("@") and len(m) > 1]
    return files, [m for m in messages if not (m.startswith("@") and len(m) > 1)]
