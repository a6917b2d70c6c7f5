"""A ``.git`` that a sandboxed command made where there was none: kept if inert, else moved out.

The sandbox keeps an existing ``.git`` read-only (:mod:`pitui.core.sandbox_protected`),
but in a project without one a command can ``git init`` and plant what the user's next
``git status`` runs: a hook, ``core.fsmonitor``, ``core.hooksPath``, a ``commondir`` or
a ``.git`` file pointing at a repository made elsewhere, a submodule's own config. So,
after every sandboxed call in a project that had no ``.git`` at its root, a new one is
checked before the user gets control back:

* it must be a directory (not a link, not a ``gitdir:`` file);
* its entries must be those git itself makes (no ``commondir``, ``modules``,
  ``worktrees``, ``config.worktree`` …), its hooks only git's ``*.sample`` files;
* every key of its config must be on a short list of inert ones (format, file modes,
  the user's name, remotes and branches), read by git itself (``--no-includes``);
* its index must hold no submodule (a gitlink makes ``git status`` run git in it).

A ``.git`` that passes is kept (``git init`` and a first commit work), and from the next
call on it is read-only like any other. One that fails is moved into pitui's home for
this project, out of the command's reach, and the tool result says where and why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from pitui import paths

_GIT_ENTRIES = frozenset(
    {
        "HEAD", "config", "description", "hooks", "info", "objects", "refs", "logs", "index",
        "packed-refs", "ORIG_HEAD", "FETCH_HEAD", "COMMIT_EDITMSG", "MERGE_HEAD", "MERGE_MSG",
        "MERGE_MODE", "AUTO_MERGE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "branches", "shallow",
        "gc.pid", "gc.log",
    }
)  # fmt: skip
"""What git itself leaves in a git dir (``*.lock`` too); anything else is not inert."""
_INERT_KEYS = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks|autocrlf|eol|safecrlf)"
    r"|extensions\.(objectformat|refstorage)|init\.defaultbranch|user\.(name|email)"
    r"|remote\.[^\n]*\.(url|pushurl|fetch)|branch\.[^\n]*\.(remote|merge|rebase)"
)
_RISKY_URL = re.compile(r"^(ext|fd)::", re.IGNORECASE)
_GITLINK = "160000 "
_NEUTRAL_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def has_git(project: Path) -> bool:
    """A ``.git`` (of any kind, a dangling link too) is at the root of ``project``."""
    return os.path.lexists(project / ".git")


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


def _index_problem(project: Path) -> str | None:
    if not (project / ".git" / "index").exists():
        return None
    tree = ["--git-dir", str(project / ".git"), "--work-tree", str(project)]
    staged = _git([*tree, "ls-files", "--stage", "-z"])
    if staged is None or staged.returncode != 0:
        return "its index cannot be read"
    if any(item.startswith(_GITLINK) for item in staged.stdout.split("\0")):
        return "its index holds a submodule"
    return None


def new_git_problem(project: Path) -> str | None:
    """Why the ``.git`` at the root of ``project`` could run something, None if inert."""
    git = project / ".git"
    if git.is_symlink():
        return "it is a symbolic link"
    if not git.is_dir():
        return "it is a file pointing at a git dir elsewhere"
    try:
        return _entry_problem(git) or _config_problem(git / "config") or _index_problem(project)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"


def quarantine(project: Path, why: str) -> str:
    """Move ``project/.git`` into pitui's home for this project; the note for the result."""
    folder = paths.project_state_dir(project) / "quarantine"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = folder / f"git-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    shutil.move(str(project / ".git"), str(target))
    return (
        f"[pitui sandbox] This command made a .git in the project, and {why}: a later git "
        f"command of yours would have run it. pitui moved it out of the project, to {target}. "
        "Ask the user to create the repository (!git init), or to run pitui with --approve all."
    )


def check_new_git(project: Path) -> str | None:
    """After a sandboxed call in a project that had no ``.git``: quarantine a new one that
    is not inert; returns the note saying so (None: none made, or an inert one)."""
    if not has_git(project):
        return None
    why = new_git_problem(project)
    return quarantine(project, why) if why else None
