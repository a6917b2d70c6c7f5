"""Resolve paths the model writes into absolute paths, as pi does.

A leading ``@`` is stripped (models copy file mentions), Unicode spaces become plain
spaces, ``~`` and ``~/`` expand to the home directory, and relative paths resolve
against the session cwd. The read tool also tries the variants macOS uses in file
names (narrow no-break space before AM/PM, NFD, U+2019 for ``'``).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from pitui.lazy_pattern import lazy_pattern

_UNICODE_SPACES = lazy_pattern("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = lazy_pattern(r" (AM|PM)\.")
_NARROW_NBSP = "\u202f"


def expand_path(file_path: str) -> str:
    """Strip ``@``, normalise Unicode spaces and expand ``~`` (no cwd applied)."""
    text = file_path[1:] if file_path.startswith("@") else file_path
    text = _UNICODE_SPACES.sub(" ", text)
    if text == "~":
        return os.path.expanduser("~")
    if text.startswith("~/"):
        return os.path.expanduser("~") + text[1:]
    return text


def resolve_to_cwd(file_path: str, cwd: str | os.PathLike[str]) -> str:
    """The absolute, normalised path of ``file_path`` relative to ``cwd``.

    Symlinks are not resolved, so messages show the path the model asked for.
    """
    expanded = expand_path(file_path)
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(os.fspath(cwd), expanded))


def real_path(path: str) -> str:
    """``path`` (absolute) as the kernel will reach it: every symlink resolved.

    For a path that does not exist yet (a new file), its nearest existing parent is
    resolved and the missing rest appended, so ``link/new.txt`` with ``link -> /outside``
    is ``/outside/new.txt``. A dangling link resolves to its target. Blocking (``lstat``
    per component); call it through ``asyncio.to_thread`` on the loop.
    """
    return os.path.realpath(path)


def is_within(path: str, root: str) -> bool:
    """True if ``path`` is ``root`` or below it; both are compared as real paths.

    Whatever the spelling (``link/..``, ``./x``, a symlinked parent), what counts is
    where the path resolves. A path that cannot be resolved (a link swapped while it is
    read) is not within. Blocking, like :func:`real_path`.
    """
    try:
        target, base = real_path(path), real_path(root)
    except OSError:
        return False
    return target == base or target.startswith(base.rstrip(os.sep) + os.sep)


def _read_variants(resolved: str) -> list[str]:
    am_pm = _AM_PM.sub(lambda m: f"{_NARROW_NBSP}{m.group(1)}.", resolved)
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", "\u2019")
    nfd_curly = nfd.replace("'", "\u2019")
    return [am_pm, nfd, curly, nfd_curly]


def resolve_read_path(file_path: str, cwd: str | os.PathLike[str]) -> str:
    """Like :func:`resolve_to_cwd`, then try macOS file-name variants if it doesn't exist.

    Blocking (a few ``stat`` calls); call it through ``asyncio.to_thread`` on the loop.
    """
    resolved = resolve_to_cwd(file_path, cwd)
    if os.path.lexists(resolved):
        return resolved
    for variant in _read_variants(resolved):
        if variant != resolved and os.path.lexists(variant):
            return variant
    return resolved


def to_posix(path: str | Path) -> str:
    """``path`` with forward slashes, as tool output shows relative paths."""
    return str(path).replace(os.sep, "/")
