"""The project's files for the composer's ``@`` finder: listed once, searched per key.

Listing runs off the event loop: fd or rg when installed (fast on big trees), else the
pure-Python walk of :mod:`pitui.core.tools.gitignore`; ``.gitignore`` is honoured
either way and ``.git`` is skipped. Searching is pure computation over the cached list,
fast enough per keystroke: one regex over all paths joined (C speed) finds those that
hold the query's characters in order, and only those are scored with pi's fuzzy score
(a match in the file name ranks above one spread over the folders).
"""

from __future__ import annotations

import asyncio
import heapq
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from pitui.core.fuzzy import fuzzy_score
from pitui.core.tools.find_fd import default_fd, gitignore_files
from pitui.core.tools.gitignore import walk

MAX_FILES = 200_000
"""A tree bigger than this is listed only this far (the finder stays responsive)."""
NAME_BONUS = 30.0
"""How much better a match inside the file name is than one across the path."""


@dataclass(frozen=True, slots=True)
class FileMatch:
    """One search result: a path relative to the project (folders end with ``/``)."""

    path: str
    score: float


def _walk_files(root: str) -> list[str]:
    files: list[str] = []
    for entry in walk(root):
        if not entry.is_dir:
            files.append(entry.rel_path)
            if len(files) >= MAX_FILES:
                break
    return files


async def _run_lister(args: list[str], root: str) -> list[str] | None:
    """The lines a listing program printed, or None when it failed."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *args,
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        out, _ = await proc.communicate()
    except asyncio.CancelledError:
        if proc.returncode is None:
            proc.kill()
        raise
    if proc.returncode not in (0, 1):
        return None
    lines = out.decode("utf-8", "replace").splitlines()
    return [line.removeprefix("./") for line in lines if line][:MAX_FILES]


async def list_project_files(root: Path, *, use_tools: bool = True) -> list[str]:
    """Every file under ``root`` not ignored, as sorted relative POSIX paths."""
    base = str(root)
    fd = default_fd() if use_tools else None
    rg = shutil.which("rg") if use_tools else None
    listed: list[str] | None = None
    if fd is not None:
        ignores = await asyncio.to_thread(gitignore_files, base)
        args = [fd, "--type", "f", "--hidden", "--color=never", "--exclude", ".git"]
        for path in ignores:
            args += ["--ignore-file", path]
        listed = await _run_lister([*args, "."], base)
    elif rg is not None:
        args = [rg, "--files", "--hidden", "--no-require-git", "--glob", "!.git"]
        listed = await _run_lister(args, base)
    if listed is None:
        listed = await asyncio.to_thread(_walk_files, base)
    return sorted(listed)


def _with_folders(files: list[str]) -> list[str]:
    """The files plus every folder holding one (``src/``), so a folder can be picked."""
    folders: set[str] = set()
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folders.add("/".join(parts[:depth]) + "/")
    return sorted(folders) + files


class ProjectFileIndex:
    """A project's files, listed in the background and searched synchronously."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: list[str] = []
        self._lower: list[str] = []
        self._names: list[str] = []
        self._lowered = ""
        self._line_at: dict[int, int] = {}
        self._task: asyncio.Task[None] | None = None
        self._started_at: float | None = None
        self._ready = False

    @property
    def ready(self) -> bool:
        """Whether a listing finished (searches have something to search)."""
        return self._ready or (self._task is not None and self._task.done())

    @property
    def paths(self) -> list[str]:
        """Every indexed path (folders first)."""
        return self._paths

    @property
    def age(self) -> float | None:
        """Seconds since the last listing started (None: never listed)."""
        return None if self._started_at is None else time.monotonic() - self._started_at

    def start(self) -> asyncio.Task[None]:
        """List the files in the background (again, when called again; the old list
        answers searches meanwhile)."""
        self._started_at = time.monotonic()
        self._task = asyncio.ensure_future(self.refresh())
        return self._task

    async def refresh(self) -> None:
        """List the files now (off the event loop) and replace the index (a listing
        that fails keeps the old one)."""
        try:
            files = await list_project_files(self.root)
        except OSError:
            self._ready = True
            return
        self.set_paths(await asyncio.to_thread(_with_folders, files))

    def set_paths(self, paths: list[str]) -> None:
        """Use ``paths`` as the index (tests, and :meth:`refresh`)."""
        self._ready = True
        self._paths = [p for p in paths if "\n" not in p]  # one path per line below
        self._lower = [p.lower() for p in self._paths]
        self._names = [p.rstrip("/").rsplit("/", 1)[-1] for p in self._lower]
        self._lowered = "\n".join(self._lower) + "\n"
        line_at, position = {}, 0
        for line, lowered in enumerate(self._lower):  # lower() may change a length
            line_at[position] = line
            position += len(lowered) + 1
        self._line_at = line_at

    def search(self, query: str, limit: int = 50) -> list[FileMatch]:
        """The best ``limit`` paths for ``query`` (empty query: the first ones).

        Substring matches rank first (in the file name before in the folders, earlier
        before later, shorter before longer); only when they are too few are fuzzy
        matches (the characters in order, anywhere) scored and added after them.
        """
        if not query:
            return [FileMatch(p, 0.0) for p in self._paths[:limit]]
        lowered = query.lower()
        exact = self._substring_matches(lowered)
        best = heapq.nsmallest(limit, exact)
        found = [FileMatch(self._paths[i], score) for score, _length, i in best]
        if len(found) >= limit:
            return found
        taken = {i for _score, _length, i in exact}
        return found + self._fuzzy_matches(lowered, taken, limit - len(found))

    def _substring_matches(self, lowered: str) -> list[tuple[float, int, int]]:
        """``(score, length, index)`` of every path holding ``lowered`` as it is."""
        hits: list[tuple[float, int, int]] = []
        for index, (path, name) in enumerate(zip(self._lower, self._names, strict=True)):
            where = path.find(lowered)
            if where < 0:
                continue
            in_name = name.find(lowered)
            score = (in_name - 2 * NAME_BONUS) if in_name >= 0 else (where - NAME_BONUS)
            hits.append((score, len(path), index))
        return hits

    def _fuzzy_matches(self, lowered: str, taken: set[int], limit: int) -> list[FileMatch]:
        pattern = "[^\\n]*?".join(re.escape(c) for c in lowered)
        scored: list[tuple[float, int, int]] = []
        for found in re.finditer(f"(?m)^[^\\n]*?{pattern}[^\\n]*$", self._lowered):
            index = self._line_at[found.start()]
            if index in taken:
                continue
            score = self._score(lowered, self._lower[index])
            if score is not None:
                scored.append((score, len(self._paths[index]), index))
        return [FileMatch(self._paths[i], s) for s, _n, i in heapq.nsmallest(limit, scored)]

    @staticmethod
    def _score(query: str, path: str) -> float | None:
        whole = fuzzy_score(query, path)
        if whole is None:
            return None
        name = path.rstrip("/").rsplit("/", 1)[-1]
        in_name = fuzzy_score(query, name)
        return whole if in_name is None else min(whole, in_name - NAME_BONUS)
