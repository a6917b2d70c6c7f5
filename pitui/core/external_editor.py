"""Edit text in the user's editor (pi's ``externalEditor``): which editor, and the round trip.

The editor is the ``externalEditor`` setting, else ``$VISUAL``, else ``$EDITOR`` (a
command line: ``code --wait`` works). The text goes through a private temp file; the
editor's exit status decides whether the edit counts (an editor that fails, or exits
non-zero as ``:cq`` in vim does, leaves the text as it was). With none configured the
user is told how to set one (pi would try ``nano``; it may well not be installed).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

NO_EDITOR = "No external editor: set $VISUAL or $EDITOR (or externalEditor in settings.json)."


def editor_command(
    setting: str | None, environ: Mapping[str, str] | None = None
) -> list[str] | None:
    """The editor's argv (without the file), or None when none is configured."""
    env = os.environ if environ is None else environ
    for value in (setting, env.get("VISUAL"), env.get("EDITOR")):
        if value and value.strip():
            try:
                parts = shlex.split(value)
            except ValueError:
                parts = value.split()
            if parts:
                return parts
    return None


@dataclass(frozen=True, slots=True)
class EditResult:
    """The edited text, or why there is none (the composer keeps its text then)."""

    text: str | None
    problem: str | None = None


def edit_text(command: list[str], text: str) -> EditResult:
    """Run the editor on ``text`` in a private temp folder, as pi does.

    Blocking on purpose: it runs while the TUI is suspended and the editor owns the
    terminal. One trailing newline (editors add it) and a BOM are removed, as pi does.
    """
    folder = tempfile.mkdtemp(prefix="pitui-editor-")
    path = os.path.join(folder, "prompt.md")
    shown = shlex.join(command)
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
        print(f"Launching external editor: {shown}\npitui will resume when the editor exits.")
        try:
            done = subprocess.run([*command, path], check=False)
        except OSError:
            return EditResult(None, f"Failed to launch external editor: {shown}")
        if done.returncode != 0:
            code = done.returncode
            why = f"signal {-code}" if code < 0 else f"code {code}"
            return EditResult(None, f"External editor exited with {why}; prompt unchanged")
        with open(path, encoding="utf-8", errors="replace") as file:
            edited = file.read()
        return EditResult(edited.removeprefix("\ufeff").removesuffix("\n"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
