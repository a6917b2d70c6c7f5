"""Which entries of the project stay read-only inside the sandbox: what pitui and git run.

Imported by the launcher (through :mod:`pitui.core.sandbox_mounts`) and by
:mod:`pitui.core.sandbox` (bubblewrap), so only ``os``. A writable ``.git`` lets the
user's next ``git status`` run the model's code: a hook, ``core.fsmonitor`` in the config,
a ``commondir`` pointing at a config of its own, a gitlink in the index. So, as Codex's
workspace-write does, the whole git dir is read-only, and with it:

* a worktree's ``.git`` file, the git dir it names and that one's common dir;
* each checked-out submodule's ``.git`` (named by ``core.worktree`` in the
  superproject's ``modules/*/config``): replaced by a directory with a config of its own,
  it would run on the superproject's ``git status``;
* the hooks folder ``core.hooksPath`` names, when it lies in the project (husky's
  ``.husky/``): those hooks are as much the user's next commit as ``.git/hooks``;
* ``.pitui``: the project settings pitui reads;
* the repositories nested in subfolders (``vendor/lib/.git``, an embedded bare
  repository), as found by :mod:`pitui.core.sandbox_git_watch`: the user's ``git status``
  in that folder would run what a command planted there.

A git command the user allowed to write the repository (:func:`pitui.core.command_rules.
git_writes`) gets the git dir writable but for what holds code git runs or points
elsewhere: ``hooks/``, ``config``, ``info/``, ``modules/``, ``worktrees/``, ``commondir``
(``GIT_KEPT``); everything else listed above stays read-only too.
"""

import os

BARE_NEEDS = (("objects", "refs"), ("commondir",))
"""With ``HEAD``, either set of entries makes a folder a git dir of its own to git."""
PROTECTED = (".git", ".pitui")
"""Entries of the project that stay read-only inside the sandbox."""
_MODULE_DEPTH = 4  # submodule names may hold slashes: modules/lib/foo
GIT_KEPT = ("hooks", "config", "config.worktree", "info", "modules", "worktrees", "commondir")
"""What stays read-only in a git dir a git command may write."""


def _first_line(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.readline().strip()
    except OSError:
        return ""


def _git_dirs(project: str) -> list[str]:
    """The project's git dir and, for a worktree, the common dir as well."""
    git = os.path.join(project, ".git")
    if not os.path.isfile(git):
        return [git]
    line = _first_line(git)
    if not line.startswith("gitdir:"):
        return []
    gitdir = os.path.join(project, line[len("gitdir:") :].strip())
    common = _first_line(os.path.join(gitdir, "commondir"))
    return [gitdir, os.path.join(gitdir, common)] if common else [gitdir]


def _config_value(gitdir: str, name: str) -> str | None:
    """The value of ``name`` (a key of ``[core]``, case-insensitive) in ``gitdir/config``.

    A plain reading (no includes, no quoting): it only ever adds paths to protect.
    """
    try:
        with open(os.path.join(gitdir, "config"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    section = ""
    for line in lines:
        text = line.strip()
        if text.startswith("["):
            section = text.strip("[]").strip().lower()
            continue
        key, _, value = text.partition("=")
        if section == "core" and key.strip().lower() == name and value.strip():
            return value.strip().strip('"')
    return None


def _worktree_of(module: str) -> str | None:
    """``core.worktree`` of the git dir ``module``, as a path, if its config names one."""
    worktree = _config_value(module, "worktree")
    return os.path.join(module, worktree) if worktree else None


def _submodule_git_files(gitdir: str) -> list[str]:
    found = []
    pending = [(os.path.join(gitdir, "modules"), _MODULE_DEPTH)]
    while pending:
        folder, depth = pending.pop()
        try:
            entries = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for entry in entries:
            worktree = _worktree_of(entry.path)
            if worktree is not None:
                found.append(os.path.join(worktree, ".git"))
                pending.append((os.path.join(entry.path, "modules"), _MODULE_DEPTH))
            elif depth > 1:
                pending.append((entry.path, depth - 1))
    return found


def _repository_paths(folder: str, git_writable: bool) -> list[str]:
    """What to keep read-only of the repository whose worktree is ``folder``."""
    git = os.path.join(folder, ".git")
    found = [git] if not git_writable or os.path.isfile(git) or os.path.islink(git) else []
    for gitdir in _git_dirs(folder):
        kept = [os.path.join(gitdir, name) for name in GIT_KEPT] if git_writable else [gitdir]
        found += [*kept, *_submodule_git_files(gitdir)]
        hooks = _config_value(gitdir, "hookspath")
        if hooks:  # husky's .husky/: hooks that live in the worktree
            found.append(os.path.join(folder, os.path.expanduser(hooks)))
    return found


def protected_paths(
    project: str, git_writable: bool = False, nested_git: tuple[str, ...] = ()
) -> list[str]:
    """The paths to keep read-only, of those that exist now: real paths, and before its
    target each symbolic link among them (pinned, the link itself cannot be replaced).
    ``git_writable``: of the project's git dirs, only :data:`GIT_KEPT`. ``nested_git``:
    the git dirs in subfolders (``sub/.git``, or a bare ``sub``), kept read-only whole."""
    found = [os.path.join(project, ".pitui"), *_repository_paths(project, git_writable)]
    for path in nested_git:
        is_dotgit = os.path.basename(path) == ".git"
        found += _repository_paths(os.path.dirname(path), False) if is_dotgit else [path]
    real: dict[str, None] = {}
    for path in found:
        if os.path.islink(path):
            parent = os.path.realpath(os.path.dirname(path))
            real.setdefault(os.path.join(parent, os.path.basename(path)))
        if os.path.lexists(path):
            real.setdefault(os.path.realpath(path))
    return [path for path in real if os.path.lexists(path)]


def looks_bare(folder: str) -> bool:
    """git takes ``folder`` as a git dir of its own (an embedded bare repository)."""
    if not os.path.lexists(os.path.join(folder, "HEAD")):
        return False
    return any(all(os.path.lexists(os.path.join(folder, n)) for n in need) for need in BARE_NEEDS)


def in_git_dir(target: str, project: str) -> bool:
    """``target`` (a real path beneath ``project``, itself real) is where git finds code
    to run, or would make a git dir: in a ``.git``, named ``HEAD`` or ``commondir``, in a
    folder git takes as a bare git dir, or in what :func:`protected_paths` keeps
    read-only (a ``core.hooksPath`` folder, the root's or a nested repository's, a
    submodule's ``.git``). Blocking (a few
    ``lstat`` a folder above it)."""
    parts = os.path.relpath(target, project).split(os.sep)
    if ".git" in parts or parts[-1] in ("HEAD", "commondir"):
        return True
    folder = os.path.dirname(target)
    nested: list[str] = []  # the repositories above it: their hooksPath folders count too
    while folder != project and folder.startswith(project.rstrip("/") + "/"):
        if looks_bare(folder):
            return True
        if os.path.lexists(git := os.path.join(folder, ".git")):
            nested.append(git)
        folder = os.path.dirname(folder)
    kept = protected_paths(project, nested_git=tuple(nested))
    return any(target == path or target.startswith(path.rstrip("/") + "/") for path in kept)
