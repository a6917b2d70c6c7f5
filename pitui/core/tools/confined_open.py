"""Open the file ``write``/``edit`` change so that no symlink can carry them out of the project.

The gate judges a path when the call is allowed, and checks it again just before the
tool runs; a command running meanwhile (a parallel ``bash`` call, a process it left)
can still swap a file or a folder for a symlink between that check and the open.
Checking the path cannot close that race; opening it this way does:

* ``openat2(root, path, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`` (Linux 5.6+, via
  ctypes): the kernel resolves the path and fails (``EXDEV``) if any step, links
  included, leaves ``root``. Links that stay inside keep working.
* Elsewhere: a walk from ``root`` one component at a time with ``dir_fd`` and
  ``O_NOFOLLOW``, so no symlink is followed at all.

Missing parent folders are made the same way (``mkdir`` relative to a folder already
opened beneath ``root``). Then what was opened is checked, not the path: it must be a
regular file with no other hard link (a hard link to a file outside is that file),
and it is truncated only after that check. All functions here block: call them in a
thread.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat

_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08
_SYS_OPENAT2 = 437  # one number on every Linux architecture (syscalls ≥ 424 are unified)
_PATH_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC


class EscapeError(OSError):
    """The path leads outside the root (through a symlink, or a link swapped in)."""


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_libc: ctypes.CDLL | None = None
_openat2_missing = platform.system() != "Linux"
_known_to_work = False


def _openat2(dir_fd: int, path: str, flags: int, mode: int) -> int | None:
    """``openat2`` beneath ``dir_fd``; None when the kernel (or a seccomp filter) lacks it."""
    global _libc, _openat2_missing
    if _openat2_missing:
        return None
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    mode = mode if flags & os.O_CREAT else 0  # openat2 refuses a mode it would not use
    how = _OpenHow(flags | os.O_CLOEXEC, mode, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
    for _ in range(8):  # EAGAIN: a rename raced the lookup; the kernel asks to retry
        fd = _libc.syscall(
            _SYS_OPENAT2, dir_fd, os.fsencode(path), ctypes.byref(how), ctypes.sizeof(how)
        )
        if fd >= 0:
            return int(fd)
        err = ctypes.get_errno()
        if err in (errno.ENOSYS, errno.EPERM) and not _known_to_work:
            _openat2_missing = True
            return None
        if err != errno.EAGAIN:
            break
    if err == errno.EXDEV:
        raise EscapeError(err, "leads outside the project", path)
    raise OSError(err, os.strerror(err), path)


def _open_beneath(root_fd: int, rel: str, flags: int, mode: int = 0o666) -> int:
    """Open ``rel`` (relative, normalised) beneath ``root_fd`` without leaving it."""
    global _known_to_work
    fd = _openat2(root_fd, rel, flags, mode)
    if fd is not None:
        _known_to_work = True
        return fd
    return _walk_nofollow(root_fd, rel, flags, mode)


def _walk_nofollow(root_fd: int, rel: str, flags: int, mode: int) -> int:
    parts = rel.split(os.sep)
    current = os.dup(root_fd)
    try:
        for part in parts[:-1]:
            try:
                following = os.open(part, _PATH_FLAGS | os.O_NOFOLLOW, dir_fd=current)
            except OSError as exc:
                if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(current, part):
                    raise EscapeError(errno.ELOOP, "a symbolic link on the way", rel) from exc
                raise
            os.close(current)
            current = following
        try:
            return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=current)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise EscapeError(errno.ELOOP, "the file is a symbolic link", rel) from exc
            raise
    finally:
        os.close(current)


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _relative(root: str, path: str) -> str:
    """``path`` relative to the real ``root``; its folder is taken as it resolves now
    (the open below is confined anyway, so a change meanwhile can only make it fail)."""
    real_root = os.path.realpath(root)
    parent, name = os.path.split(path)
    rel_parent = os.path.relpath(os.path.realpath(parent), real_root)
    rel = os.path.normpath(os.path.join(rel_parent, name))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        raise EscapeError(errno.EXDEV, "outside the project", path)
    if rel == os.curdir:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return rel


def _make_parents(root_fd: int, rel_dir: str) -> None:
    """Create the missing folders of ``rel_dir``, each inside one opened beneath the root."""
    done = ""
    for part in rel_dir.split(os.sep):
        parent_fd = _open_beneath(root_fd, done or os.curdir, _PATH_FLAGS)
        try:
            os.mkdir(part, dir_fd=parent_fd)
        except FileExistsError:
            pass
        finally:
            os.close(parent_fd)
        done = os.path.join(done, part) if done else part


def open_file(path: str, beneath: str | None, flags: int, *, make_parents: bool = False) -> int:
    """Open ``path`` (absolute) for ``write``/``edit``; returns an fd to a checked file.

    ``beneath``: the folder the open must stay in (None: the user allowed any place; the
    path is opened as it is, links followed). ``flags`` must not hold ``O_TRUNC``:
    truncate after this returns (:func:`replace_contents`).

    Raises:
        EscapeError: The path leads out of ``beneath`` (a symlink, or a link swapped in).
        OSError: Anything else (not found, a folder, no permission, not a regular file…).
    """
    flags |= os.O_NONBLOCK  # a FIFO planted here must not hang the tool
    if beneath is None:
        if make_parents:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, flags | os.O_CLOEXEC, 0o666)
    else:
        root_fd = os.open(os.path.realpath(beneath), _PATH_FLAGS)
        try:
            rel = _relative(beneath, path)
            try:
                fd = _open_beneath(root_fd, rel, flags)
            except FileNotFoundError:
                if not make_parents or os.path.dirname(rel) == "":
                    raise
                _make_parents(root_fd, os.path.dirname(rel))
                fd = _open_beneath(root_fd, rel, flags)
        finally:
            os.close(root_fd)
    try:
        _check_opened(fd, path, confined=beneath is not None)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_opened(fd: int, path: str, *, confined: bool) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", path)
    if confined and info.st_nlink > 1:
        raise EscapeError(errno.EMLINK, "the file has other hard links (one may be outside)", path)
    os.set_blocking(fd, True)


def read_all(fd: int) -> bytes:
    """Everything in the open file ``fd``, from the start."""
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def replace_contents(fd: int, data: bytes) -> None:
    """Make the open file ``fd`` hold exactly ``data``."""
    os.ftruncate(fd, 0)
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)
