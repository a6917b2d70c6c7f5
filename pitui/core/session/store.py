"""SessionStore: one session's entry tree, its leaf, and its file (pi's SessionManager).

Opening a file locks it, reads it off the loop, parses it and migrates an old-format
(v1/v2) file in memory only: the migration is written with the first append (see
:meth:`SessionStore.flush`), never when a file is just read.

Appends are synchronous in memory (ids and leaf are final when the call starts) and
durable on disk when the awaited call returns. As in pi, nothing is written until the
session holds an assistant message; then the header and every pending entry go out at
once, and each later entry is one appended line.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

from pitui.core.session import listing
from pitui.core.session.append import AppendMixin
from pitui.core.session.context import UNSET, LeafArg, SessionContext, build_context_from_table
from pitui.core.session.entries import (
    MessageEntry,
    SessionEntry,
    SessionHeader,
)
from pitui.core.session.ids import (
    CURRENT_SESSION_VERSION,
    iso_now,
    new_session_id,
    session_file_name,
)
from pitui.core.session.load import (
    LoadedFile,
    LoadReport,
    needs_newline,
    parse_session_lines,
    read_lines,
)
from pitui.core.session.table import EntryTable
from pitui.core.session.tree import TreeNode, build_tree
from pitui.core.session.writer import SessionWriter, dumps_line
from pitui.errors import SessionError


class SessionStore(AppendMixin):
    """One session. Build with :meth:`create`, :meth:`open`, :meth:`in_memory` or
    :func:`~pitui.core.session.fork.fork_store`."""

    def __init__(self, header: SessionHeader, path: Path | None, session_dir: Path | None) -> None:
        self.header = header
        self.path = path
        """The session file (None for an in-memory session)."""
        self.session_dir = session_dir
        self.read_only = False
        self.read_only_reason: str | None = None
        """Why a writable open fell back to read-only (the lock or write error)."""
        self.report = LoadReport()
        """Problems found when the file was opened."""
        self._table = EntryTable()
        self._named: tuple[EntryTable, int, str | None] = (self._table, 0, None)
        """(table, entries read, the name they give) for :meth:`get_session_name`."""
        self._labels: dict[str, str] = {}
        self._leaf: str | None = None
        self._has_assistant = False
        self._pending: list[bytes] = [dumps_line(header.to_json_dict())]
        self._writer: SessionWriter | None = None
        """Open, locked file handle (created with the first write; tied to its event loop)."""
        self._migration: LoadedFile | None = None
        """An old-format file migrated in memory, to be written with the first append."""
        self.migration_backup: Path | None = None
        """Where the original of a migrated file was kept (once the migration is written)."""
        self._write_lock = asyncio.Lock()

    # ------------------------------------------------------------------ constructors

    @classmethod
    def _new(
        cls,
        cwd: str,
        session_dir: Path | None,
        persist: bool,
        session_id: str | None,
        parent: str | None,
    ) -> SessionStore:
        timestamp = iso_now()
        header = SessionHeader(
            version=CURRENT_SESSION_VERSION,
            id=session_id or new_session_id(),
            timestamp=timestamp,
            cwd=cwd,
            parent_session=parent,
        )
        directory = (session_dir or listing.default_session_dir(cwd)) if persist else None
        path = directory / session_file_name(timestamp, header.id) if directory else None
        return cls(header, path, directory)

    @classmethod
    def create(
        cls,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
    ) -> SessionStore:
        """A new session for ``cwd``; its file appears with the first assistant message."""
        return cls._new(str(cwd), session_dir, True, session_id, parent_session)

    @classmethod
    def in_memory(cls, cwd: str | Path) -> SessionStore:
        """A session that is never written (``--no-session``)."""
        return cls._new(str(cwd), None, False, None, None)

    @classmethod
    async def open(
        cls,
        path: Path | str,
        *,
        session_dir: Path | None = None,
        read_only: bool = False,
        fallback_read_only: bool = False,
    ) -> SessionStore:
        """Open a session file; a missing file starts a new session at that path (as pi).

        Args:
            path: The session file.
            session_dir: Directory for sessions forked from this one (default: the file's).
            read_only: Never lock or write (a v1/v2 file is migrated in memory only).
            fallback_read_only: When another process holds the file, or it cannot be
                written, open it read-only instead of raising (``read_only_reason`` says
                why).

        Raises:
            SessionError: Bad header (the file is left untouched), or the file is locked.
        """
        file = Path(os.path.abspath(path))  # noqa: ASYNC240  (getcwd only, no disk I/O)
        directory = session_dir or file.parent
        if not await asyncio.to_thread(os.path.exists, file):
            store = cls._new(str(Path.cwd()), directory, True, None, None)
            store.path = file
            return store
        if await asyncio.to_thread(os.path.isdir, file):
            raise SessionError(f"{file} is a directory, not a session file")
        writer: SessionWriter | None = None
        reason: str | None = None
        if not read_only:
            try:
                writer = await SessionWriter.open(file)
            except SessionError as exc:
                if not fallback_read_only:
                    raise
                reason = exc.message
        try:
            loaded, newline = await asyncio.to_thread(_read_and_parse, file)
            store = cls._from_loaded(loaded, file, directory, writer, newline)
        except BaseException:
            if writer is not None:
                await writer.close()
            raise
        store.read_only = writer is None
        store.read_only_reason = reason
        return store

    @classmethod
    def _from_loaded(
        cls,
        loaded: LoadedFile,
        file: Path,
        directory: Path,
        writer: SessionWriter | None,
        newline: bool,
    ) -> SessionStore:
        if writer is not None:
            writer.set_needs_newline(newline)
        if loaded.header is None:  # an empty file: a new session at this path
            store = cls._new(str(Path.cwd()), directory, True, None, None)
            store.path, store._writer = file, writer
            return store
        store = cls(SessionHeader.load(loaded.header), file, directory)
        store.report = loaded.report
        store._table, store._labels = loaded.table, loaded.labels
        store._leaf = loaded.table.ids[-1] if len(loaded.table) else None
        store._has_assistant = "assistant" in loaded.table.roles
        store._pending = []
        store._writer = writer
        if loaded.report.migrated_from is not None:
            # Written with the first append, not now: opening a file to read it changes nothing.
            store._migration = loaded
        return store

    @classmethod
    async def continue_recent(
        cls,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        read_only: bool = False,
        fallback_read_only: bool = False,
    ) -> SessionStore:
        """The most recent session of ``cwd`` (by file mtime), or a new one (see :meth:`open`)."""
        directory = session_dir or listing.default_session_dir(str(cwd))
        recent = await asyncio.to_thread(listing.most_recent_session, directory)
        if recent is None:
            return cls.create(cwd, directory)
        return await cls.open(
            recent,
            session_dir=directory,
            read_only=read_only,
            fallback_read_only=fallback_read_only,
        )

    # ------------------------------------------------------------------ reading

    @property
    def session_id(self) -> str:
        """The session's UUID."""
        return self.header.id

    @property
    def cwd(self) -> str:
        """Working directory the session belongs to."""
        return self.header.cwd

    def has_reply(self) -> bool:
        """Whether the session holds an assistant message (before that, pi writes nothing)."""
        return self._has_assistant

    @property
    def persisted(self) -> bool:
        """False for an in-memory session."""
        return self.path is not None

    def get_leaf_id(self) -> str | None:
        """Id of the current leaf (None before the first entry or after :meth:`reset_leaf`)."""
        return self._leaf

    def get_leaf_entry(self) -> SessionEntry | None:
        """The current leaf entry."""
        return None if self._leaf is None else self._table.get(self._leaf)

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        """The entry with this id."""
        return self._table.get(entry_id)

    def get_entries(self) -> list[SessionEntry]:
        """Every entry in file order (header excluded)."""
        return self._table.all()

    def entry_count(self) -> int:
        """Number of entries (header excluded)."""
        return len(self._table)

    def get_children(self, entry_id: str) -> list[SessionEntry]:
        """Direct children of an entry, in file order."""
        table = self._table
        return [table.entry(i) for i, p in enumerate(table.parents) if p == entry_id]

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """Entries from the root to ``from_id`` (default: the leaf), root first."""
        start = from_id if from_id is not None else self._leaf
        position = None if start is None else self._table.index.get(start)
        if position is None:
            return []
        return [self._table.entry(i) for i in self._table.path_positions(position)]

    def get_tree(self) -> list[TreeNode]:
        """The session as a forest (children by timestamp, labels resolved)."""
        return build_tree(self._table, self._labels)

    def get_label(self, entry_id: str) -> str | None:
        """The resolved label of an entry."""
        return self._labels.get(entry_id)

    def labels(self) -> dict[str, str]:
        """All resolved labels: target id → label."""
        return dict(self._labels)

    def get_session_name(self) -> str | None:
        """Name from the latest ``session_info`` with a non-empty name. Entries are only
        ever appended, so a call reads only those added since the last one (the status
        bar asks several times per switch; a 10,000-entry file without a name was a scan
        of every entry each time)."""
        table = self._table
        named, read, name = self._named
        if named is not table:
            read, name = 0, None
        types = table.types
        for position in range(len(table) - 1, read - 1, -1):
            if types[position] == "session_info":
                found = table.raw(position).get("name")
                if isinstance(found, str) and found:
                    name = found
                    break
        self._named = (table, len(table), name)
        return name

    def damage_notice(self) -> str | None:
        """One line on what opening the file skipped or cut (None for a sound file)."""
        from pitui.core.session.damage import damage_notice

        return damage_notice(self.report, self._table, self._leaf, self.path)

    def build_context(
        self, leaf_id: LeafArg = UNSET, *, keep_json: bool = False, one_shot: bool = False
    ) -> SessionContext:
        """What the model sees at ``leaf_id`` (default: the current leaf).

        ``keep_json``: also map messages to the JSON they were read from (for printing).
        ``one_shot``: for a process that builds this context once and ends: what a
        compaction summarised gives its lines up first (see
        :func:`~pitui.core.session.context.build_context_from_table`).
        """
        leaf = self._leaf if leaf_id is UNSET else leaf_id
        lines_from = self.path if one_shot else None
        return build_context_from_table(
            self._table, leaf, keep_json=keep_json, lines_from=lines_from
        )

    @property
    def table(self) -> EntryTable:
        """The raw entry table (for tools that need speed: ``pitui session``, benchmarks)."""
        return self._table

    # ------------------------------------------------------------------ appending

    def check_writable(self) -> None:
        """Raise :class:`SessionError` if nothing can be added (a read-only session)."""
        if self.read_only:
            how = (
                "open it again once it is writable and no other pitui has it open"
                if self.read_only_reason
                else "open it without --read-only"
            )
            raise SessionError(
                f"{self.path} is open read-only: nothing can be added to it. Start a new "
                f"session (/new), fork it (/fork), or {how}.",
                title="Session read-only",
            )

    async def _append(self, entry: SessionEntry) -> str:
        self.check_writable()
        raw = entry.to_json_dict()
        self._table.add_entry(entry, raw)
        self._leaf = entry.id
        if isinstance(entry, MessageEntry) and entry.message.role == "assistant":
            self._has_assistant = True
        if self.path is not None:
            self._pending.append(dumps_line(raw))
            await self.flush()
        return entry.id

    async def flush(self) -> None:
        """Write pending lines (once the session has an assistant message, as pi)."""
        if self.path is None or self.read_only or not self._has_assistant:
            return
        async with self._write_lock:
            if not self._pending:
                return
            lines, self._pending = self._pending, []
            try:
                if self._writer is None:
                    self._writer = await SessionWriter.open(self.path)
                if self._migration is not None:
                    await self._write_migration(self._writer, self._migration, lines)
                else:
                    await self._writer.append(b"".join(lines))
            except BaseException:
                self._pending[:0] = lines
                raise

    async def _write_migration(
        self, writer: SessionWriter, loaded: LoadedFile, lines: list[bytes]
    ) -> None:
        """Replace the old-format file by its migration plus ``lines``, atomically, keeping
        the original beside it (``FILE.v1.bak``)."""
        suffix = f".v{loaded.report.migrated_from}.bak"
        data = loaded.migrated_bytes() + b"".join(lines)
        self.migration_backup = await writer.replace_keeping_original(data, suffix)
        self._migration = None

    # ------------------------------------------------------------------ branching

    def branch(self, entry_id: str) -> None:
        """Move the leaf to ``entry_id``; the next append starts a new branch there."""
        if entry_id not in self._table.index:
            raise SessionError(f"Entry {entry_id} not found")
        self._leaf = entry_id

    def reset_leaf(self) -> None:
        """Leaf = None: the next append is a new root."""
        self._leaf = None

    def release_typed_lines(self) -> int:
        """Let the typed entries give up the lines they were read from (kept in them);
        they are read again from the file when asked. For a long-lived process, once
        start-up has read every line. Blocking (it reads the file): run it in a thread.
        Returns how many lines were given up."""
        if self.path is None:
            return 0
        return self._table.release_typed_lines(self.path)

    async def close(self) -> None:
        """Release the file (pending entries of a session without a reply are dropped, as pi)."""
        self._table.close_source()
        if self._writer is not None:
            await self._writer.close()
            self._writer = None

    async def __aenter__(self) -> SessionStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def read_only_notice(store: SessionStore) -> str:
    """Why the session is read-only and what that means, for the user."""
    why = store.read_only_reason
    # The reason is an open error ("… in another pitui process; close it there, or …"):
    # its first clause says why; its advice is what just happened.
    cause = re.split(r"; |\. ", why, maxsplit=1)[0].rstrip(".") if why else ""
    lead = f"{cause}: opened read-only" if cause else f"{store.path} is open read-only"
    return f"{lead}. It is shown and can be forked (/fork), but nothing can be added to it."


async def read_session_bytes(path: Path) -> bytes:
    """The whole file.

    Raises:
        SessionError: It cannot be read (naming the file and the cause).
    """
    try:
        return await asyncio.to_thread(path.read_bytes)
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: Path, exc: OSError) -> SessionError:
    if isinstance(exc, IsADirectoryError):
        return SessionError(f"{path} is a directory, not a session file")
    return SessionError(
        f"cannot read the session file {path}: {exc.strerror or exc}",
        title="Session unreadable",
    )


def _read_and_parse(path: Path) -> tuple[LoadedFile, bool]:
    """(the parsed file, whether it needs a newline before an append), in a thread."""
    try:
        lines = read_lines(str(path))
    except OSError as exc:
        raise _unreadable(path, exc) from None
    return parse_session_lines(lines, name=str(path)), needs_newline(lines)
