"""A git dir that a sandboxed command made where there was none: kept if inert, else moved out.

The sandbox keeps the git dirs that exist read-only (:mod:`pitui.core.sandbox_protected`),
but where there is none — the project's root, or any subfolder — a command can
``git init`` and plant what the user's next ``git status`` there runs: a hook,
``core.fsmonitor``, ``core.hooksPath``, a ``commondir`` or a ``.git`` file pointing at a
repository made elsewhere, a submodule's own config, or an embedded bare repository
(``sub/HEAD``, ``sub/config``, ``sub/objects/``, ``sub/refs/``). So after every sandboxed
call each new git dir (:mod:`pitui.core.sandbox_git_watch` finds them cheaply) is checked
before the user gets control back:

* it must be a directory (not a link, not a ``gitdir:`` file);
* its entries must be those git itself makes (no ``commondir``, ``modules``,
  ``worktrees``, ``config.worktree`` …), its hooks only git's ``*.sample`` files;
* every key of its config must be on a short list of inert ones (format, file modes,
  the user's name, remotes and branches), read by git itself (``--no-includes``);
* its index must hold no submodule (a gitlink makes ``git status`` run git in it).

A git dir that passes is kept (``git init`` and a first commit work), and from the next
call on it is read-only like any other. One that fails is moved into pitui's home for
this project, out of the command's reach (a bare one's ``HEAD``: without it git sees no
repository there), and the tool result says where and why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from pitui import paths
from pitui.core.sandbox_git_watch import MAX_FOLDERS, GitDir, GitWatch
from pitui.lazy_pattern import lazy_pattern

_GIT_ENTRIES = frozenset(
    {
        "HEAD", "config", "description", "hooks", "info", "objects", "refs", "logs", "index",
        "packed-refs", "ORIG_HEAD", "FETCH_HEAD", "COMMIT_EDITMSG", "MERGE_HEAD", "MERGE_MSG",
        "MERGE_MODE", "AUTO_MERGE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "branches", "shallow",
        "gc.pid", "gc.log",
    }
)  # fmt: skip
"""What git itself leaves in a git dir (``*.lock`` too); anything else is not inert."""
_INERT_KEYS = lazy_pattern(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks|autocrlf|eol|safecrlf)"
    r"|extensions\.(objectformat|refstorage)|init\.defaultbranch|user\.(name|email)"
    r"|remote\.[^\n]*\.(url|pushurl|fetch)|branch\.[^\n]*\.(remote|merge|rebase)"
)
_RISKY_URL = lazy_pattern(r"^(ext|fd)::", re.IGNORECASE)
_GITLINK = "160000 "
_NEUTRAL_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(args: list[str]) -> subprocess.CompletedProcess[str] | None:
    env = {**os.environ, **_NEUTRAL_GIT_ENV}
    try:
        return subprocess.run(
            ["git", *args], capture_output=True, text=True, env=env, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _config_problem(config: Path) -> str | None:
    if not config.exists():
        return None
    listed = _git(["config", "--file", str(config), "--no-includes", "--list", "-z"])
    if listed is None or listed.returncode != 0:
        return "its config cannot be read"
    for item in filter(None, listed.stdout.split("\0")):
        key, _, value = item.partition("\n")
        if not _INERT_KEYS.fullmatch(key.lower()):
            return f"its config sets {key}"
        if key.lower().endswith("url") and _RISKY_URL.match(value):
            return f"its config sets {key} to a command transport"
    return None


def _entry_problem(gitdir: Path) -> str | None:
    for entry in os.scandir(gitdir):
        if entry.name not in _GIT_ENTRIES and not entry.name.endswith(".lock"):
            return f"it holds {entry.name}"
        if entry.is_symlink():
            return f"its {entry.name} is a symbolic link"
    hooks = gitdir / "hooks"
    if hooks.is_dir():
        for entry in os.scandir(hooks):
            if not entry.name.endswith(".sample"):
                return f"it has a hook ({entry.name})"
    return None


def _index_problem(folder: Path) -> str | None:
    if not (folder / ".git" / "index").exists():
        return None
    tree = ["--git-dir", str(folder / ".git"), "--work-tree", str(folder)]
    staged = _git([*tree, "ls-files", "--stage", "-z"])
    if staged is None or staged.returncode != 0:
        return "its index cannot be read"
    if any(item.startswith(_GITLINK) for item in staged.stdout.split("\0")):
        return "its index holds a submodule"
    return None


def git_dir_problem(git: GitDir) -> str | None:
    """Why ``git`` could run something, None if it is inert."""
    folder, path = Path(git.folder), Path(git.path)
    if not git.bare and path.is_symlink():
        return "it is a symbolic link"
    if not path.is_dir():
        return "it is a file pointing at a git dir elsewhere"
    try:
        if git.bare:
            return _entry_problem(path) or _config_problem(path / "config")
        return _entry_problem(path) or _config_problem(path / "config") or _index_problem(folder)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"


def quarantine(project: Path, git: GitDir, why: str) -> str:
    """Move ``git`` (a bare one's ``HEAD``) into pitui's home for this project; the note
    for the tool result."""
    folder = paths.project_state_dir(project) / "quarantine"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = folder / f"git-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns()}"
    shutil.move(git.marker if git.bare else git.path, str(target))
    where = os.path.relpath(git.path, project)
    what = "a .git" if where == ".git" else f"a git repository at {where}"
    moved = "its HEAD" if git.bare else "it"
    return (
        f"[pitui sandbox] This command made {what} in the project, and {why}: a later git "
        f"command of yours would have run it. pitui moved {moved} out of the project, to "
        f"{target}. Ask the user to create the repository (!git init), or to run pitui "
        "with --approve all."
    )


def check_new_git_dirs(watch: GitWatch) -> str | None:
    """After a sandboxed call: quarantine each new git dir that is not inert (and one
    made earlier that changed and no longer is); the notes saying so (None: none)."""
    project = Path(watch.project)
    notes = []
    for git in watch.after_call():
        why = git_dir_problem(git)
        if why is None:
            watch.keep(git)
            continue
        try:
            notes.append(quarantine(project, git, why))
        except OSError as exc:
            notes.append(
                f"[pitui sandbox] This command made a git repository at {git.path}, and "
                f"{why}; pitui could not move it out ({exc.strerror}): do not run git there."
            )
        watch.forget(git)
    if not watch.complete and not watch.told_incomplete:
        watch.told_incomplete = True
        notes.append(
            f"[pitui sandbox] This project has more than {MAX_FOLDERS:,} folders: a git "
            "repository a command makes beyond them is not checked. Run git only where "
            "you know what is there."
        )
    return "\n\n".join(notes) or None
