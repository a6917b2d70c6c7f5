"""The Landlock launcher: restrict this process, then ``exec`` the command.

Run as a script, not imported (``python -S -I sandbox_exec.py [options] -- PROGRAM ARGS``):
it must start fast (no site, no pitui package, only ``os``, ``sys`` and ``ctypes``), and
whatever it ``exec``s inherits the restriction, as do all its children; it cannot be
lifted. Reading and executing are allowed everywhere; creating, writing, truncating,
renaming and deleting only beneath each ``--write DIR`` (and on each ``--write-file``,
e.g. ``/dev/null``). ``--no-network`` also denies TCP bind and connect (Landlock ABI 4+).

If the restriction cannot be applied, the command is not run: exit code 126 and a line
on stderr starting ``pitui sandbox:``. Three syscalls do the work (``landlock_create_ruleset``,
``landlock_add_rule``, ``landlock_restrict_self``), after ``prctl(PR_SET_NO_NEW_PRIVS)``.
"""

from __future__ import annotations

import ctypes
import os
import sys

# The Landlock syscalls have the same numbers on every architecture (asm-generic).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_ALL_V1 = (1 << 13) - 1  # EXECUTE … MAKE_SYM: every right of ABI 1
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_READ = _EXECUTE | _READ_FILE | _READ_DIR
EXIT_FAILED = 126


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _fail(message: str) -> None:
    sys.stderr.write(f"pitui sandbox: {message}\n")
    sys.stderr.flush()
    os._exit(EXIT_FAILED)


def _parse(argv: list[str]) -> tuple[list[str], list[str], bool, list[str]]:
    dirs: list[str] = []
    files: list[str] = []
    network = True
    index = 0
    while index < len(argv) and argv[index] != "--":
        option = argv[index]
        if option == "--no-network":
            network = False
            index += 1
        elif option in ("--write", "--write-file") and index + 1 < len(argv):
            (dirs if option == "--write" else files).append(argv[index + 1])
            index += 2
        else:
            _fail(f"unknown option {option!r}")
    command = argv[index + 1 :]
    if not command:
        _fail("no command given")
    return dirs, files, network, command


def _fs_rights(abi: int) -> int:
    rights = _ALL_V1
    if abi >= 2:
        rights |= _REFER  # without it, renames across directories are always refused
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a writable place that does not exist needs no rule
    try:
        rule = _PathBeneathAttr(access, fd)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            _fail(f"cannot add a rule for {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def restrict(dirs: list[str], files: list[str], network: bool) -> None:
    """Restrict this process (and everything it will run) to the given writable places."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    if abi < 1:
        _fail(f"Landlock is not available: {os.strerror(ctypes.get_errno())}")
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled, 0)
    size = ctypes.sizeof(_RulesetAttr)
    if abi < 4:
        size = ctypes.sizeof(ctypes.c_uint64)  # older kernels know only the fs field
        if not network:
            _fail(f"turning the network off needs Landlock ABI 4 (this kernel has {abi})")
    elif not network:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        _fail(f"cannot create a ruleset: {os.strerror(ctypes.get_errno())}")
    _allow(libc, ruleset, "/", _READ)
    for path in dirs:
        _allow(libc, ruleset, path, handled)
    file_rights = _READ_FILE | _WRITE_FILE | (handled & _TRUNCATE)
    for path in files:
        _allow(libc, ruleset, path, file_rights)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
    if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
        _fail(f"cannot restrict: {os.strerror(ctypes.get_errno())}")
    os.close(ruleset)


def main(argv: list[str]) -> None:
    """Parse ``argv``, restrict, and ``exec`` the command (never returns)."""
    dirs, files, network, command = _parse(argv)
    restrict(dirs, files, network)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        _fail(f"cannot run {command[0]}: {exc.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
