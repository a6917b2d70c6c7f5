"""What the resume picker does with the session list: load it progressively, read the
message text a search needs, rename a session, move one to the trash.

All file work runs off the event loop (``asyncio.to_thread``). Listing only reads: a
pi session directory given with ``--session-dir`` is listed byte for byte unchanged
(the listing cache lives in the pitui home).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from pitui import paths
from pitui.core.session.ids import encode_cwd
from pitui.core.session.list_cache import ListCache
from pitui.core.session.listing import (
    SessionInfo,
    cached_rows,
    default_session_dir,
    listing_directories,
    scan_files,
    session_files,
)
from pitui.core.session.writer import held_elsewhere
from pitui.errors import SessionError

BATCH_FILES = 48
"""Files read per step of a cold listing (each step's rows are shown at once)."""


@dataclass(frozen=True, slots=True)
class PickerScopes:
    """The directories of the picker's two scopes."""

    current: list[Path]
    everywhere: list[Path]


def picker_scopes(cwd: str, session_dir: Path | None) -> PickerScopes:
    """This folder's sessions and all sessions. With ``--session-dir DIR``: DIR (or, when
    DIR is a sessions root like ``~/.pi/agent/sessions``, its folder for ``cwd``), and
    DIR with its subfolders."""
    if session_dir is None:
        current = Path(os.path.abspath(default_session_dir(cwd)))
        return PickerScopes([current], listing_directories(cwd, None, all_projects=True))
    root = Path(os.path.abspath(session_dir))
    project = root / encode_cwd(cwd)
    current = project if project.is_dir() else root
    return PickerScopes([current], listing_directories(cwd, root, all_projects=True))


@dataclass(frozen=True, slots=True)
class ListingStep:
    """Rows read so far in one step of a progressive listing."""

    rows: list[SessionInfo]
    done: int
    """Files handled so far (of ``total``)."""
    total: int


async def list_progressively(
    directories: list[Path], *, use_cache: bool = True, batch: int = BATCH_FILES
) -> AsyncIterator[ListingStep]:
    """The sessions of ``directories`` (absolute paths), as they are read: first every
    row the listing cache holds (a warm listing is one step), then the other files
    ``batch`` at a time. Unreadable files come as rows with ``error`` set. The cache is
    saved at the end, also when the consumer stops early."""
    files = await asyncio.to_thread(session_files, directories)
    cache = (
        await asyncio.to_thread(ListCache.load, paths.session_list_cache()) if use_cache else None
    )
    if cache is not None:
        rows, misses = await asyncio.to_thread(cached_rows, files, cache, unreadable=True)
    else:
        rows, misses = [], files
    done = len(files) - len(misses)
    try:
        if rows or not misses:
            yield ListingStep(rows, done, len(files))
        for start in range(0, len(misses), batch):
            chunk = misses[start : start + batch]
            rows = await asyncio.to_thread(scan_files, chunk, cache, unreadable=True)
            done += len(chunk)
            yield ListingStep(rows, done, len(files))
    finally:
        if cache is not None:
            await asyncio.to_thread(cache.save, {str(d) for d in directories})


# --------------------------------------------------------------------------- search text


def _text_of(message: dict[str, object]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = (b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return " ".join(t for t in texts if isinstance(t, str))


def _may_hold_chat_text(line: bytes) -> bool:
    """Skip tool results and other entries without parsing them, when pi wrote the line."""
    if b'"role":"user"' in line or b'"role":"assistant"' in line:
        return True
    return b'"role"' in line and b'"role":"' not in line  # another writer's spacing


def read_messages_text(path: str) -> str:
    """pi's ``allMessagesText``: user and assistant texts joined by spaces ("" when the
    file cannot be read)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return ""
    texts: list[str] = []
    for line in data.split(b"\n"):
        if not _may_hold_chat_text(line):
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested past the stack
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or entry.get("type") != "message":
            continue
        text = _text_of(message) if message.get("role") in ("user", "assistant") else ""
        if text:
            texts.append(text)
    return " ".join(texts)


def _read_texts(infos: list[SessionInfo]) -> list[str]:
    return [read_messages_text(info.path) for info in infos]


class MessageTexts:
    """Message texts of listed sessions, read on demand and kept while the file is
    unchanged (the picker asks for them once a query is typed)."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[int, str]] = {}

    def get(self, info: SessionInfo) -> str | None:
        """The text, if read since the file last changed (by its listed activity time)."""
        found = self._texts.get(info.path)
        return found[1] if found is not None and found[0] == info.modified_ms else None

    def missing(self, infos: list[SessionInfo]) -> list[SessionInfo]:
        """Sessions whose text has not been read yet."""
        return [i for i in infos if i.error is None and self.get(i) is None]

    async def load(self, infos: list[SessionInfo], batch: int = BATCH_FILES) -> AsyncIterator[int]:
        """Read the texts of ``infos`` off the loop, yielding how many are done."""
        for start in range(0, len(infos), batch):
            chunk = infos[start : start + batch]
            texts = await asyncio.to_thread(_read_texts, chunk)
            for info, text in zip(chunk, texts, strict=True):
                self._texts[info.path] = (info.modified_ms, text)
            yield start + len(chunk)

    def forget(self, path: str) -> None:
        """Drop a session's text (after it changed)."""
        self._texts.pop(path, None)


# --------------------------------------------------------------------------- rename, trash


async def rename_session(path: Path, name: str) -> None:
    """Name the session in ``path`` (appends a ``session_info`` entry to that file).

    Raises:
        SessionError: The file is open in another pitui, cannot be written, or holds no
            reply yet (pi writes nothing before the first reply, so there is nothing to
            name on disk).
    """
    from pitui.core.session.store import SessionStore

    name = name.strip()
    if not name:
        raise SessionError("A session name cannot be empty", title="Rename failed")
    store = await SessionStore.open(path)
    try:
        if not store.has_reply():
            raise SessionError(f"{path} has no reply yet: nothing to rename", title="Rename failed")
        await store.set_name(name)
    finally:
        await store.close()


def _trash_target(path: Path) -> Path:
    folder = paths.trash_dir() / path.parent.name
    target = folder / path.name
    counter = 1
    while target.exists():
        target = folder / f"{path.stem}.{counter}{path.suffix}"
        counter += 1
    return target


def _move_to_trash(path: Path) -> Path:
    if not path.is_file():
        raise SessionError(f"{path} no longer exists", title="Delete failed")
    if held_elsewhere(path):
        raise SessionError(
            f"{path} is open in another pitui; close it there first.", title="Delete failed"
        )
    target = _trash_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(path, target)
    except OSError:  # another file system: copy, then remove the original
        shutil.move(path, target)
    return target


async def trash_session(path: Path) -> Path:
    """Move a session file to the trash folder of the pitui home (never unlinked);
    returns where it went.

    Raises:
        SessionError: The file is gone, is open in another pitui, or cannot be moved.
    """
    try:
        return await asyncio.to_thread(_move_to_trash, path)
    except OSError as exc:
        raise SessionError(
            f"cannot move {path} to the trash: {exc}", title="Delete failed"
        ) from exc
