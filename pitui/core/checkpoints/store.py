"""The shadow store of one project folder: where it lives, how it is set up, its lock.

``<pitui home>/projects/<folder>-<hash>/checkpoints/`` is a git directory of pitui's own
(``GIT_DIR``) with its own index and object store; the project is only its work tree.
The project's ``.git`` is never opened for writing: its ``info/exclude`` is read and
copied into the store's own exclude file. Everything here is 0700/0600 in the pitui
home, out of reach of the workspace sandbox.
"""

from __future__ import annotations

import asyncio
import copy
import fcntl
import json
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from pitui import paths
from pitui.core.checkpoints.errors import CheckpointError
from pitui.core.checkpoints.git import STORE_ATTRIBUTES, STORE_CONFIG, Git
from pitui.private_files import private_dir

_T = TypeVar("_T")
PRUNE_EVERY_S = 24 * 3600
"""Housekeeping of the store runs at most this often (see :mod:`.prune`)."""
DEFAULT_EXCLUDES = ("/.pitui/", ".git/", ".*.pitui-restore-*")
"""Never snapshotted: pitui's own folder, any git directory, a restore's temporary files."""


class Limits(NamedTuple):
    """What a project may hold before files are skipped or the feature turns off."""

    max_file_bytes: int = 10 * 1024 * 1024
    max_files: int = 100_000


def _stamp(info: os.stat_result) -> tuple[int, int, int]:
    """A file's identity and version: a replaced file has a new inode or mtime."""
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def store_dir(cwd: Path) -> Path:
    """The shadow git directory of the project folder ``cwd``."""
    return paths.project_state_dir(cwd) / "checkpoints"


def _config_text() -> str:
    sections: dict[str, list[str]] = {}
    for key, value in (("core.repositoryformatversion", "0"), *STORE_CONFIG):
        section, name = key.split(".", 1)
        sections.setdefault(section, []).append(f"\t{name} = {value}")
    return "".join(f"[{section}]\n" + "\n".join(rows) + "\n" for section, rows in sections.items())


class ShadowStore:
    """One project's checkpoint store: set-up, lock, exclude file and small state file."""

    def __init__(self, cwd: Path, limits: Limits | None = None) -> None:
        self.cwd = cwd.resolve()
        self.limits = limits or Limits()
        self.git_dir = store_dir(self.cwd)
        self.git = Git(self.git_dir, self.cwd)
        self._state: tuple[tuple[int, int, int], dict[str, Any]] | None = None
        """The state file as this process last read or wrote it, with the file's stamp
        (inode, size, mtime): a checkpoint's snapshot and its note read it once."""

    @property
    def state_file(self) -> Path:
        """pitui's notes about the store (skipped files, last prune)."""
        return self.git_dir / "pitui-state.json"

    def exists(self) -> bool:
        """True once the store has been created (a first checkpoint was taken)."""
        return (self.git_dir / "objects").is_dir()

    def _ensure_files(self) -> None:
        """Create the store if needed, and (re)write its config and attributes."""
        private_dir(self.git_dir)
        for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "info"):
            (self.git_dir / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        head = self.git_dir / "HEAD"
        if not head.exists():
            head.write_text("ref: refs/heads/main\n")
        _write_if_changed(self.git_dir / "config", _config_text())
        _write_if_changed(self.git_dir / "info" / "attributes", STORE_ATTRIBUTES)

    def write_excludes(self, oversize: list[str]) -> None:
        """The store's ``info/exclude``: defaults, the project's own ``.git/info/exclude``
        (read only), and the files skipped for their size. Blocking."""
        lines = ["# written by pitui: never snapshotted", *DEFAULT_EXCLUDES]
        project_exclude = self.cwd / ".git" / "info" / "exclude"
        with suppress(OSError, UnicodeDecodeError):
            if project_exclude.is_file() and not project_exclude.is_symlink():
                lines += ["# the project's .git/info/exclude", project_exclude.read_text()]
        lines += ["# pitui's own home, when the project holds it", *self._own_folders()]
        lines += ["# over the size limit", *(_literal_pattern(path) for path in oversize)]
        _write_if_changed(self.git_dir / "info" / "exclude", "\n".join(lines) + "\n")

    def _own_folders(self) -> list[str]:
        """Exclude lines for the pitui home (this store included) if it is inside the
        project (pitui started in ``~``): a snapshot must never hold its own store."""
        found = []
        for folder in {paths.home().resolve(), self.git_dir.resolve()}:
            if folder.is_relative_to(self.cwd) and folder != self.cwd:
                found.append(_literal_pattern(folder.relative_to(self.cwd).as_posix()) + "/")
        return sorted(found)

    # ------------------------------------------------------------------ state

    def read_state(self) -> dict[str, Any]:
        """The state file's object ({} when missing or unreadable), the caller's own copy.
        Blocking. Read again only when the file is not the one this process last read
        or wrote (another pitui wrote it: :meth:`write_state` always replaces it)."""
        try:
            stamp = _stamp(os.stat(self.state_file))
        except OSError:
            return {}
        cached = self._state
        if cached is None or cached[0] != stamp:
            try:
                data = json.loads(self.state_file.read_text())
            except (OSError, ValueError):
                return {}
            if not isinstance(data, dict):
                return {}
            self._state = cached = (stamp, data)
        return copy.deepcopy(cached[1])

    def note_session(self, session_file: Path) -> None:
        """Remember that ``session_file`` names checkpoints of this store (housekeeping
        keeps what it names). Blocking."""
        state = self.read_state()
        known = state.setdefault("sessions", [])
        name = str(session_file)
        if name not in known:
            known.append(name)
            self.write_state(state)

    def prune_due(self) -> bool:
        """True when the last prune was :data:`PRUNE_EVERY_S` ago or more (and marks it as
        started). Blocking."""
        state = self.read_state()
        last = state.get("lastPrune")
        due = isinstance(last, int | float) and time.time() - last >= PRUNE_EVERY_S
        if due or not isinstance(last, int | float):  # a new store: its first prune in a day
            state["lastPrune"] = time.time()
            self.write_state(state)
        return due

    @property
    def journal_path(self) -> Path:
        """Where a running restore lists its temporary files."""
        return self.git_dir / "restore-journal.json"

    def clean_leftovers(self) -> None:
        """Remove the temporary files of a restore that was killed. Blocking."""
        journal = self.journal_path
        try:
            names = json.loads(journal.read_text())
        except (OSError, ValueError):
            return
        for name in names if isinstance(names, list) else []:
            if isinstance(name, str) and ".pitui-restore-" in name:
                with suppress(OSError):
                    os.unlink(name)
        with suppress(OSError):
            journal.unlink()

    def write_state(self, state: dict[str, Any]) -> None:
        """Replace the state file atomically. Blocking."""
        tmp = self.state_file.with_name(f".state-{os.getpid()}-{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(state, handle)
            handle.flush()
            stamp = _stamp(os.fstat(handle.fileno()))
        os.replace(tmp, self.state_file)
        self._state = (stamp, copy.deepcopy(state))

    # ------------------------------------------------------------------ lock

    @asynccontextmanager
    async def locked(self, then: Callable[[], None] | None = None) -> AsyncIterator[None]:
        """Hold the store's lock (two pitui processes in one project take turns); the
        store is created or its config refreshed once the lock is held, then ``then``
        runs (blocking work of the caller's: one thread hop for all of it)."""
        taking = asyncio.ensure_future(asyncio.to_thread(self._take_lock, then))
        try:
            fd = await asyncio.shield(taking)
        except asyncio.CancelledError:
            # The thread may still be waiting for the lock: its fd is closed when it
            # has it (closing it under a waiting flock would release nothing).
            taking.add_done_callback(_close_taken)
            raise
        try:
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _take_lock(self, then: Callable[[], None] | None) -> int:
        """Open and lock the lock file, set the store up, run ``then``. Blocking."""
        private_dir(self.git_dir)
        fd = os.open(self.git_dir / "pitui.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._ensure_files()
            if then is not None:
                then()
        except BaseException:
            os.close(fd)
            raise
        return fd


async def finish_blocking(work: Callable[..., _T], *args: Any) -> _T:
    """``asyncio.to_thread(work, *args)`` for a holder of the store's lock, finished even
    when the caller is cancelled (a snapshot no checkpoint wants): the lock is let go
    only once the thread's writes to the store are done."""
    running = asyncio.ensure_future(asyncio.to_thread(work, *args))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        await running
        raise


def _close_taken(taking: asyncio.Future[int]) -> None:
    if not taking.cancelled() and taking.exception() is None:
        os.close(taking.result())


def _literal_pattern(path: str) -> str:
    """A gitignore line matching exactly the file ``path`` (relative, POSIX)."""
    escaped = "".join("\\" + c if c in "\\*?[!# " else c for c in path)
    return "/" + escaped


def _write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text() == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    tmp = path.with_name(f".{path.name}-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def require_store(cwd: Path) -> ShadowStore:
    """The existing store of ``cwd``.

    Raises:
        CheckpointError: no checkpoint was ever taken in this folder.
    """
    store = ShadowStore(cwd)
    if not store.exists():
        raise CheckpointError(f"No checkpoint store for {store.cwd} (expected {store.git_dir})")
    return store
