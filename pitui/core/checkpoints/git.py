"""The git CLI, run for the shadow store only, isolated from everything around it.

Checkpoints use git's plumbing (stat cache, content-addressed objects, packs, gc) through
asyncio subprocesses, so nothing blocks the event loop. The project is untrusted: git runs
with a clean environment (no inherited ``GIT_*`` variable, no system or global config, no
hooks, no fsmonitor, no filters or attribute-driven conversions), so neither the user's
config nor anything a repository ships can change what a snapshot holds or run code.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

from pitui import paths
from pitui.core.checkpoints.errors import CheckpointError
from pitui.private_files import write_private

MIN_VERSION = (2, 25)
"""``--pathspec-from-file`` (2.25) is what a checkpoint of a few changed files uses."""

# Config written into the shadow store (and nowhere else): a hostile project cannot reach
# it, and the user's ~/.gitconfig is never read (GIT_CONFIG_GLOBAL=/dev/null).
STORE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.bare", "false"),
    ("core.fsmonitor", "false"),
    ("core.sharedRepository", "0600"),
    # Checkpoints favour speed: a power cut may lose the newest ones, never the project.
    ("core.fsync", "none"),
    ("core.fsyncObjectFiles", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.symlinks", "true"),
    ("core.filemode", "true"),
    ("core.quotePath", "false"),
    ("core.untrackedCache", "true"),
    ("core.attributesFile", "/dev/null"),
    ("core.logAllRefUpdates", "false"),
    ("core.preloadIndex", "true"),
    ("core.looseCompression", "1"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("status.showUntrackedFiles", "all"),
    ("status.renames", "false"),
    ("diff.renames", "false"),
    ("advice.addEmbeddedRepo", "false"),
    ("advice.addIgnoredFile", "false"),
)

# Every attribute that could make stored bytes differ from the file's bytes is unset:
# ``$GIT_DIR/info/attributes`` wins over any ``.gitattributes`` the project ships.
STORE_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n"


class GitResult(NamedTuple):
    """One finished git command."""

    code: int
    stdout: bytes
    stderr: bytes

    def text(self) -> str:
        """stderr (else stdout) as one trimmed line of text, for an error message."""
        raw = (self.stderr or self.stdout).decode("utf-8", "replace").strip()
        return raw.splitlines()[-1] if raw else f"exit code {self.code}"


_version_cache: dict[str, tuple[int, ...] | None] = {}


def find_git() -> str | None:
    """The git executable on PATH, or None."""
    return shutil.which("git")


def parse_version(text: str) -> tuple[int, ...] | None:
    """``git version 2.39.5`` → ``(2, 39, 5)``."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return None
    return tuple(int(part) for part in match.groups() if part is not None)


def _noted_version(executable: str) -> tuple[list[str | int] | None, tuple[int, ...] | None]:
    """(what tells this git binary from another: real path, size, mtime, inode; the
    version noted for it, None when none is or it was another binary). Blocking."""
    try:
        real = os.path.realpath(executable)
        info = os.stat(real)
    except OSError:
        return None, None
    identity: list[str | int] = [real, info.st_size, info.st_mtime_ns, info.st_ino]
    try:
        noted = json.loads(paths.git_version_cache().read_text())
    except (OSError, ValueError):
        return identity, None
    if not isinstance(noted, dict) or noted.get("git") != identity:
        return identity, None
    version = noted.get("version")
    if isinstance(version, list) and version and all(isinstance(p, int) for p in version):
        return identity, tuple(version)
    return identity, None


def _note_version(identity: list[str | int], version: tuple[int, ...]) -> None:
    """Remember ``version`` for this git binary (best effort). Blocking."""
    with suppress(OSError):  # the next process asks git again
        write_private(paths.git_version_cache(), json.dumps({"git": identity, "version": version}))


async def _ask_version(executable: str) -> tuple[int, ...] | None:
    proc = await asyncio.create_subprocess_exec(
        executable,
        "--version",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=clean_environment(),
    )
    out, _ = await proc.communicate()
    return parse_version(out.decode("ascii", "replace"))


async def git_version(executable: str) -> tuple[int, ...] | None:
    """The version of ``executable``: noted once per binary in the pitui home (a file
    read instead of a process start on every run), asked of git when unknown."""
    if executable in _version_cache:
        return _version_cache[executable]
    identity, version = await asyncio.to_thread(_noted_version, executable)
    if version is None:
        version = await _ask_version(executable)
        if version is not None and identity is not None:
            await asyncio.to_thread(_note_version, identity, version)
    _version_cache[executable] = version
    return version


async def git_problem() -> str | None:
    """Why checkpoints cannot run on this machine (None: git ≥ 2.25 is there)."""
    executable = find_git()
    if executable is None:
        return "git is not installed (checkpoints need git 2.25 or newer on PATH)"
    version = await git_version(executable)
    if version is None or version[:2] < MIN_VERSION:
        shown = ".".join(map(str, version)) if version else "unknown"
        return f"git {shown} is too old (checkpoints need git 2.25 or newer)"
    return None


def clean_environment() -> dict[str, str]:
    """The process environment without any ``GIT_*`` variable, plus isolation settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_AUTHOR_NAME="pitui",
        GIT_AUTHOR_EMAIL="pitui@localhost",
        GIT_COMMITTER_NAME="pitui",
        GIT_COMMITTER_EMAIL="pitui@localhost",
        LC_ALL="C",
    )
    env.pop("XDG_CONFIG_HOME", None)
    return env


class Git:
    """Runs git against one shadow store (``GIT_DIR``) and one work tree (the project)."""

    def __init__(self, git_dir: Path, work_tree: Path) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        executable = find_git()
        if executable is None:
            raise CheckpointError("git is not installed")
        self._executable = executable
        env = clean_environment()
        env.update(
            GIT_DIR=str(git_dir),
            GIT_WORK_TREE=str(work_tree),
            GIT_INDEX_FILE=str(git_dir / "index"),
        )
        self._env = env

    async def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> GitResult:
        """Run ``git ARGS`` in the work tree; raise :class:`CheckpointError` on failure."""
        proc = await asyncio.create_subprocess_exec(
            self._executable,
            *args,
            cwd=str(self.work_tree),
            env=self._env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await proc.communicate(stdin)
        except BaseException:  # cancelled: never leave a git holding the index lock
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            raise
        result = GitResult(proc.returncode or 0, out, err)
        if check and result.code != 0:
            command = next((a for a in args if not a.startswith("-") and "=" not in a), "")
            raise CheckpointError(f"git {command} failed: {result.text()}")
        return result

    async def out(self, *args: str, stdin: bytes | None = None) -> bytes:
        """stdout of a command that must succeed."""
        return (await self.run(*args, stdin=stdin)).stdout
