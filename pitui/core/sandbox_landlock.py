"""The Landlock ruleset of a sandboxed command: what it may write, ioctl, signal and connect.

Imported by the launcher (:mod:`pitui.core.sandbox_exec`), so only ``os`` and ``ctypes``.
Reading and executing are allowed everywhere; creating, writing, truncating, renaming and
deleting only beneath each writable directory (and on each writable file, e.g.
``/dev/null``). Each newer ABI is used when the kernel has it:

* ABI 2/3: renames across directories and truncation are handled (so granted only inside);
* ABI 4: with the network off, no TCP bind or connect;
* ABI 5: no ioctl on device files opened in the sandbox (``TIOCSTI`` into a terminal)
  but the command's own terminals (a devpts instance of its mount namespace);
* ABI 6: no signals to processes outside the sandbox, no connections to abstract unix
  sockets made outside it (tmux, X11 and D-Bus use them).

Device nodes cannot be made anywhere: a root sandbox would otherwise ``mknod`` the disk.
"""

from __future__ import annotations

import ctypes
import os

# The Landlock syscalls have the same numbers on every architecture (asm-generic).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_MAKE_CHAR, _MAKE_BLOCK = 1 << 6, 1 << 11
_ALL_V1 = (1 << 13) - 1  # EXECUTE … MAKE_SYM: every right of ABI 1
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
_READ = _EXECUTE | _READ_FILE | _READ_DIR


class LandlockError(Exception):
    """The ruleset could not be built or applied (the message says why)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The kernel's Landlock ABI, 0 when it has none."""
    return max(int(_libc().syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)), 0)


def _fs_rights(abi: int) -> int:
    rights = _ALL_V1
    if abi >= 2:
        rights |= _REFER  # without it, renames across directories are always refused
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV  # handled and granted nowhere
    return rights


def _ruleset_attr(abi: int, network: bool) -> tuple[_RulesetAttr, int]:
    """The attribute and the size this kernel understands (older ones know fewer fields)."""
    attr = _RulesetAttr(_fs_rights(abi), 0, 0)
    if abi < 4:
        if not network:
            raise LandlockError(f"turning the network off needs Landlock ABI 4 (this has {abi})")
        return attr, ctypes.sizeof(ctypes.c_uint64)
    if not network:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
    if abi < 6:
        return attr, 2 * ctypes.sizeof(ctypes.c_uint64)
    attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
    return attr, ctypes.sizeof(_RulesetAttr)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a writable place that does not exist needs no rule
    try:
        rule = _PathBeneathAttr(access, fd)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise LandlockError(f"cannot add a rule for {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def restrict(
    dirs: list[str], files: list[str], network: bool, terminals: tuple[str, ...] = ()
) -> None:
    """Restrict this thread (and all it will run) to the given writable places, for good.

    ``terminals``: where device ioctls stay allowed (the namespace's own devpts and its
    ptmx, so the command's own terminals work). The caller has set ``no_new_privs``
    (Landlock requires it without CAP_SYS_ADMIN).
    """
    libc = _libc()
    abi = int(libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION))
    if abi < 1:
        raise LandlockError(f"Landlock is not available: {os.strerror(ctypes.get_errno())}")
    attr, size = _ruleset_attr(abi, network)
    ruleset = int(libc.syscall(_CREATE_RULESET, ctypes.byref(attr), size, 0))
    if ruleset < 0:
        raise LandlockError(f"cannot create a ruleset: {os.strerror(ctypes.get_errno())}")
    handled = attr.handled_access_fs
    _allow(libc, ruleset, "/", _READ)
    for path in dirs:
        _allow(libc, ruleset, path, handled & ~(_MAKE_CHAR | _MAKE_BLOCK | _IOCTL_DEV))
    for path in files:
        _allow(libc, ruleset, path, _READ_FILE | _WRITE_FILE | (handled & _TRUNCATE))
    for path in terminals:
        _allow(libc, ruleset, path, _READ_FILE | _WRITE_FILE | (handled & _IOCTL_DEV))
    if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
        raise LandlockError(f"cannot restrict: {os.strerror(ctypes.get_errno())}")
    os.close(ruleset)
