"""Bring a session file (pi's or pitui's) into the sessions store (``/import``, as pi 1.6).

The file is copied byte for byte, so it keeps its id, its cwd and whatever pi wrote (the
original is never touched; opening the copy for writing migrates an older format, as any
resume does). The copy
keeps the file's name (``name-1.jsonl``, ``name-2.jsonl`` … when taken); a file already in
the store is not copied again. A file that does not parse is refused with the reasons.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from pitui.core.session.load import parse_session_bytes
from pitui.errors import SessionError

MAX_REASONS = 3


@dataclass(frozen=True)
class ImportedSession:
    """Where an imported session landed."""

    path: Path
    session_id: str
    cwd: str
    copied: bool
    """False when the file was in the store already."""


def _check(data: bytes, name: str) -> tuple[str, str]:
    """``(id, cwd)`` of a file that parses completely; raises SessionError otherwise."""
    if not data.strip():
        raise SessionError(f"{name}: empty file, not a session")
    loaded = parse_session_bytes(data, name=name)  # raises on a bad header
    problems = [f"line {n}: {why}" for n, why in loaded.report.bad_lines]
    if problems:
        shown = "; ".join(problems[:MAX_REASONS])
        more = f" (and {len(problems) - MAX_REASONS} more)" if len(problems) > MAX_REASONS else ""
        raise SessionError(
            f"{name} does not parse: {shown}{more}. Nothing was imported; "
            "`pitui session check FILE --repair OUT` writes a repaired copy."
        )
    header = loaded.header or {}
    return str(header.get("id", "")), str(header.get("cwd", ""))


def _copy_exclusive(data: bytes, directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    stem, suffix = os.path.splitext(name)
    candidate, number = directory / name, 0
    while True:
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            number += 1
            candidate = directory / f"{stem}-{number}{suffix}"
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return candidate


def _import(source: Path, session_dir: Path) -> ImportedSession:
    source = source.expanduser()
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        raise SessionError(f"{source}: no such file") from None
    except OSError as exc:
        raise SessionError(f"{source}: {exc.strerror or exc}") from exc
    session_id, cwd = _check(data, str(source))
    target = session_dir / source.name
    if target.exists() and target.samefile(source):
        return ImportedSession(target, session_id, cwd, copied=False)
    try:
        path = _copy_exclusive(data, session_dir, source.name)
    except OSError as exc:
        raise SessionError(f"cannot write to {session_dir}: {exc.strerror or exc}") from exc
    return ImportedSession(path, session_id, cwd, copied=True)


async def import_session(source: Path, session_dir: Path) -> ImportedSession:
    """Copy the session file ``source`` into ``session_dir`` (off the event loop).

    Raises:
        SessionError: The file is missing, does not parse, or cannot be copied.
    """
    return await asyncio.to_thread(_import, source, session_dir)
