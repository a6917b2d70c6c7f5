"""Git dirs anywhere in the project, found after each sandboxed call without walking the tree.

git finds a repository from any folder it runs in: ``sub/.git`` (a directory, or a
``gitdir:`` file), or ``sub`` itself when it holds ``HEAD`` with ``objects/`` and
``refs/`` (an embedded bare repository: ``safe.bareRepository`` is ``all`` by default).
A sandboxed command that makes one in a subfolder has the user's later ``git status``
there run its hook or ``core.fsmonitor`` (:mod:`pitui.core.sandbox_git` judges it).

Finding them must not cost a walk of a 10,000-file tree on every call. Each folder's
stamp (inode and change time) is kept between calls: adding, removing or renaming an
entry changes a folder's ctime, and no command can set a ctime back (``touch -d`` sets
the mtime; the clock is root's, whose ``CAP_SYS_TIME`` the sandbox drops). So after a
call only the folders whose stamp changed are listed again, and the folders new in them
walked; the git dirs known are stamped too (themselves, ``config``, ``hooks/``, the
index), to see one change. A stamp read within :data:`_RACY_NS` of a change could be
followed by another in the same clock tick: such a folder is listed again regardless.
Nothing under a git dir is walked (``objects/`` alone has 256 folders).

Before a call the same pass takes in what changed since (the user's own ``!git clone``
is theirs, not the model's), unless another sandboxed call is still running (the caller
knows: :class:`~pitui.core.tools.bash.BashTool`).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import msgspec

from pitui.core.sandbox_protected import BARE_NEEDS

Stamp = tuple[int, int]  # inode, ctime in ns
_RACY_NS = 2_000_000_000
MAX_FOLDERS = 20_000
"""Folders stamped at most (two passes a call: ~65 ms at 1.6 µs a ``stat``): a larger
tree (pitui started in ``~``) is watched in part, and the tool result says so once."""
_GIT_STAMPED = ("config", "hooks", "index", "commondir")


class GitDir(msgspec.Struct, frozen=True):  # a Struct: cheap to define on the print path
    """A git dir git would find: ``folder/.git`` (``bare`` False) or ``folder`` itself."""

    folder: str
    bare: bool

    @property
    def path(self) -> str:
        """The git dir (or ``.git`` file)."""
        return self.folder if self.bare else os.path.join(self.folder, ".git")

    @property
    def marker(self) -> str:
        """What makes it one: ``.git``, or a bare one's ``HEAD``."""
        return os.path.join(self.folder, "HEAD" if self.bare else ".git")


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_ino, info.st_ctime_ns


def _git_stamp(git: GitDir) -> tuple[Stamp | None, ...]:
    path = git.path
    return (_stamp(git.marker), *(_stamp(os.path.join(path, name)) for name in _GIT_STAMPED))


def _is_bare(names: set[str]) -> bool:
    return "HEAD" in names and any(names.issuperset(need) for need in BARE_NEEDS)


class GitWatch:
    """The git dirs of one project and the stamps that tell when a new one appears.

    Thread-safe (its passes run off the event loop, and bash calls may overlap).
    """

    def __init__(self, project: Path) -> None:
        self.project = os.path.realpath(project)
        self._folders: dict[str, Stamp | None] = {self.project: None}
        self._gits: dict[GitDir, tuple[Stamp | None, ...]] = {}
        self._made: set[GitDir] = set()
        """Git dirs a sandboxed command made and that were kept (inert)."""
        self._walked = False
        self._lock = threading.Lock()
        self.complete = True
        """False once the tree had more than :data:`MAX_FOLDERS` folders."""
        self.told_incomplete = False

    def before_call(self, take_in: bool = True) -> tuple[str, ...]:
        """``take_in``: take in what changed since the last pass, as the user's (the
        caller says no while another sandboxed call runs: then it is that call's work);
        the first pass walks the tree. The nested git dirs known, to keep read-only (the
        project's own ``.git`` is not listed)."""
        with self._lock:
            if take_in or not self._walked:
                self._changes()
                self._walked = True
            return tuple(git.path for git in self._gits if git.folder != self.project)

    def after_call(self) -> list[GitDir]:
        """The git dirs made or changed by sandboxed commands since :meth:`before_call`:
        new ones, and those made earlier whose stamp changed. The caller judges each
        (:meth:`keep` or :meth:`forget`)."""
        with self._lock:
            return self._changes()

    def keep(self, git: GitDir) -> None:
        """``git`` was judged inert: known from now on (and watched for changes)."""
        with self._lock:
            self._made.add(git)

    def forget(self, git: GitDir) -> None:
        """``git`` was moved out: its folder is listed again on the next pass."""
        with self._lock:
            self._gits.pop(git, None)
            self._made.discard(git)
            if git.folder in self._folders:
                self._folders[git.folder] = None

    # ---- the passes (under the lock) ---------------------------------------------------

    def _changes(self) -> list[GitDir]:
        """Rescan the folders whose stamp changed; the git dirs that are new (or made by a
        command and changed since). A folder gone is dropped (its own entry fails too)."""
        found: list[GitDir] = []
        for folder, stamp in list(self._folders.items()):
            if stamp is None or _stamp(folder) != stamp:
                self._walk(folder, found)
        for git, stamps in list(self._gits.items()):
            now = _git_stamp(git)
            if now[0] is None:
                self._gits.pop(git)
                self._made.discard(git)
            elif now != stamps:
                self._gits[git] = now
                if git in self._made and git not in found:
                    found.append(git)
        return found

    def _walk(self, top: str, found: list[GitDir]) -> None:
        """List ``top`` again, and walk the folders in it not known yet (new ones);
        the git dirs new there go into ``found``."""
        pending = [top]
        while pending:
            folder = pending.pop()
            if folder not in self._folders and len(self._folders) >= MAX_FOLDERS:
                self.complete = False  # only new folders are left out: known ones are
                continue  # always listed again (a git dir made at the top is caught)
            pending += [p for p in self._record(folder, found) if p not in self._folders]

    def _record(self, folder: str, found: list[GitDir]) -> list[str]:
        """Stamp ``folder`` and list it (the stamp first: a change after it is seen next
        time); its git dirs noted, its subfolders returned."""
        stamp = _stamp(folder)
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            self._folders.pop(folder, None)
            return []
        racy = stamp is not None and time.time_ns() - stamp[1] < _RACY_NS
        self._folders[folder] = None if racy else stamp
        names = {entry.name for entry in entries}
        if _is_bare(names):
            self._note(GitDir(folder, bare=True), found)
            return []  # a git dir: nothing below is walked
        if ".git" in names:
            self._note(GitDir(folder, bare=False), found)
        subfolders = []
        for entry in entries:
            try:
                if entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                    subfolders.append(entry.path)
            except OSError:
                continue
        return subfolders

    def _note(self, git: GitDir, found: list[GitDir]) -> None:
        if git not in self._gits:
            self._gits[git] = _git_stamp(git)
            found.append(git)
