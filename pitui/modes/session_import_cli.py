"""``pitui session import FILE``: copy a session file (pi's or pitui's) into the store.

The copy keeps the file's id and cwd; it goes to the sessions folder of that cwd (so
``pitui -r`` in that project lists it), or to ``--session-dir``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pitui.core.blocking import run_blocking
from pitui.core.session.importing import import_session
from pitui.core.session.listing import default_session_dir
from pitui.core.session.load import parse_session_bytes
from pitui.errors import SessionError


def _session_dir(source: Path, given: str | None) -> Path:
    if given:
        return Path(given)
    try:
        header = parse_session_bytes(source.read_bytes(), name=str(source)).header or {}
    except OSError as exc:
        raise SessionError(f"{source}: {exc.strerror or exc}") from exc
    return default_session_dir(str(header.get("cwd") or Path.cwd()))


def cmd_import(argv: list[str]) -> int:
    """``pitui session import FILE [--session-dir DIR]``."""
    parser = argparse.ArgumentParser(
        prog="pitui session import", description="Copy a session file into the sessions store."
    )
    parser.add_argument("file")
    parser.add_argument("--session-dir", metavar="DIR", help="store the copy in DIR")
    args = parser.parse_args(argv)
    source = Path(args.file).expanduser()
    if not source.is_file():
        raise SessionError(f"{source}: no such session file")
    imported = run_blocking(import_session(source, _session_dir(source, args.session_dir)))
    note = run_blocking(_model_note(imported.path))
    verb = "imported to" if imported.copied else "already in the store:"
    sys.stdout.write(
        f"Session {verb} {imported.path}\n"
        f"  id {imported.session_id}  cwd {imported.cwd}\n"
        f"  open it with: pitui --session {imported.path}\n"
    )
    if note is not None:
        sys.stdout.write(f"  {note}\n")
    return 0


async def _model_note(path: Path) -> str | None:
    """Whether the session's model is one pitui can use here (the notice if not)."""
    from pitui.ai.models import ModelRegistry
    from pitui.core.model_notice import unconfigured_model_notice
    from pitui.core.session.store import SessionStore

    store = await SessionStore.open(path, read_only=True)
    try:
        used = store.build_context().model
    finally:
        await store.close()
    return unconfigured_model_notice(await ModelRegistry.load(), used, None)
