"""Take a conversation with you: export a session's branch (``/export``, ``--export``).

The output's suffix picks the format: ``.html`` (default; one self-contained page in the
current theme's colours), ``.md`` (Markdown) or ``.jsonl`` (a copy of the session file).
The default name is pi's with pitui's prefix: ``pitui-session-<file basename>.html``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from pitui.core.export.html import render_html
from pitui.core.export.items import Block, branch_blocks
from pitui.core.export.markdown import render_markdown_export
from pitui.core.export.summary import ExportHeader, export_header
from pitui.core.sanitize import json_inert_bytes
from pitui.core.session.store import SessionStore
from pitui.core.session.writer import dumps_line
from pitui.core.themes import PiTheme
from pitui.errors import PituiError

__all__ = ["ExportError", "default_export_name", "export_session", "resolve_export_path"]

FORMATS = {".html": "HTML", ".htm": "HTML", ".md": "Markdown", ".jsonl": "JSONL"}


class ExportError(PituiError):
    """An export that could not be written (bad name, unwritable place)."""

    title = "Export"


def default_export_name(store: SessionStore) -> str:
    """``pitui-session-<basename>.html`` (the session id for an unsaved session)."""
    base = store.path.stem if store.path is not None else store.session_id
    return f"pitui-session-{base}.html"


def resolve_export_path(store: SessionStore, target: str | None, cwd: Path) -> Path:
    """Where an export goes: ``target`` (relative to ``cwd``; a directory gets the default
    name) or the default name in ``cwd``.

    Raises:
        ExportError: The suffix names no format.
    """
    if not target:
        return cwd / default_export_name(store)
    path = Path(os.path.expanduser(target))
    path = path if path.is_absolute() else cwd / path
    if path.is_dir():
        return path / default_export_name(store)
    if path.suffix.lower() not in FORMATS:
        known = ", ".join(FORMATS)
        raise ExportError(f"{path.name}: unknown export format (use {known})")
    return path


def _session_bytes(store: SessionStore) -> bytes:
    """The session file as it is on disk, or as it would be (a file not yet written)."""
    if store.path is not None and store.path.is_file():
        return store.path.read_bytes()
    table = store.table
    lines = [dumps_line(store.header.to_json_dict())]
    for position in range(len(table)):
        line = table.line(position)
        lines.append(line + b"\n" if line is not None else dumps_line(table.raw(position)))
    return b"".join(lines)


def _jsonl_bytes(store: SessionStore) -> bytes:
    """The ``.jsonl`` export: the session's data unchanged once parsed, but with no raw
    DEL or C1 control (``\u009b`` …) for a terminal to obey when the file is shown."""
    return json_inert_bytes(_session_bytes(store))


def render_export(store: SessionStore, suffix: str, theme: PiTheme) -> bytes:
    """The export of ``store``'s current branch in the format of ``suffix``."""
    if suffix == ".jsonl":
        return _jsonl_bytes(store)
    blocks = branch_blocks(store.get_branch())
    return _render(export_header(store, blocks), blocks, suffix, theme)


def _render(header: ExportHeader, blocks: list[Block], suffix: str, theme: PiTheme) -> bytes:
    if suffix == ".md":
        return render_markdown_export(header, blocks).encode()
    return render_html(header, blocks, theme).encode()


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _check_target(store: SessionStore, path: Path) -> None:
    if store.path is not None and path.exists() and path.samefile(store.path):
        raise ExportError("the export would overwrite the session file itself")


def _render_and_write(path: Path, make: Callable[[], bytes]) -> None:
    data = make()
    try:
        _write(path, data)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from exc


async def export_session(store: SessionStore, path: Path, theme: PiTheme) -> Path:
    """Write the export of ``store``'s current branch to ``path``.

    The branch is read on the caller's loop (the store is not shared with threads); the
    rendering and the file work run in a thread.

    Raises:
        ExportError: The file cannot be written.
    """
    await asyncio.to_thread(_check_target, store, path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        make: Callable[[], bytes] = functools.partial(_jsonl_bytes, store)
    else:
        blocks = branch_blocks(store.get_branch())
        make = functools.partial(_render, export_header(store, blocks), blocks, suffix, theme)
    await asyncio.to_thread(_render_and_write, path, make)
    return path
