"""The seccomp filter of a sandboxed command: the syscalls Landlock cannot judge.

Imported by the launcher (:mod:`pitui.core.sandbox_exec`), so only ``os``, ``sys`` and
``ctypes``. The filter returns an error (never kills) for:

* ``ioctl(TIOCSTI)`` and ``ioctl(TIOCLINUX)``: pushing keystrokes into a terminal
  (Landlock ABI 5 also denies device ioctls, this covers older kernels);
* with the network off, ``socket()`` of any family but ``AF_UNIX`` (UDP, raw, packet,
  netlink: Landlock only knows TCP) and ``io_uring_setup`` (io_uring makes sockets
  without the ``socket`` syscall);
* ``add_key``, ``request_key`` and ``keyctl``: the session keyring is the user's, shared
  with what runs outside (Docker's default profile refuses them too);
* syscalls of another ABI (i386 or x32 on x86-64), which would slip past the numbers.

Built for x86-64 and aarch64; elsewhere :func:`install` raises :class:`SeccompError`.
"""

from __future__ import annotations

import ctypes
import errno
import os

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_LD_ABS_W, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARGS = 0, 4, 16  # struct seccomp_data
_X32_BIT = 0x40000000
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_AF_UNIX = 1
_IO_URING_SETUP = 425  # the same on both architectures


class SeccompError(Exception):
    """The filter could not be built or installed here (the message says why)."""


# machine → (AUDIT_ARCH_*, ioctl, socket, (add_key, request_key, keyctl))
_ARCHES = {
    "x86_64": (0xC000003E, 16, 41, (248, 249, 250)),
    "aarch64": (0xC00000B7, 29, 198, (217, 218, 219)),
}

Instruction = tuple[int, int, int, int]  # code, jump if true, jump if false, k


def _errno(code: int) -> int:
    return _RET_ERRNO | code


def _when(nr: int, arg: int, value: int, *, equal: bool, result: int) -> list[Instruction]:
    """``if syscall == nr and (args[arg] == value) == equal: return result`` (low 32 bits:
    the kernel reads both arguments used here as 32-bit ints)."""
    return [
        (_LD_ABS_W, 0, 0, _OFFSET_NR),
        (_JEQ_K, 0, 3, nr),
        (_LD_ABS_W, 0, 0, _OFFSET_ARGS + 8 * arg),
        (_JEQ_K, 0, 1, value) if equal else (_JEQ_K, 1, 0, value),
        (_RET_K, 0, 0, result),
    ]


def _deny(nr: int, result: int) -> list[Instruction]:
    """``if syscall == nr: return result``."""
    return [(_LD_ABS_W, 0, 0, _OFFSET_NR), (_JEQ_K, 0, 1, nr), (_RET_K, 0, 0, result)]


def program(machine: str, network: bool) -> list[Instruction]:
    """The filter for ``machine`` (``os.uname().machine``)."""
    if machine not in _ARCHES:
        raise SeccompError(f"no seccomp filter for {machine} (x86_64 and aarch64 only)")
    arch, ioctl, socket, keyring = _ARCHES[machine]
    eperm = _errno(errno.EPERM)
    code: list[Instruction] = [
        (_LD_ABS_W, 0, 0, _OFFSET_ARCH),
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, eperm),
        (_LD_ABS_W, 0, 0, _OFFSET_NR),
        (_JSET_K, 0, 1, _X32_BIT),
        (_RET_K, 0, 0, eperm),
    ]
    code += _when(ioctl, 1, _TIOCSTI, equal=True, result=eperm)
    code += _when(ioctl, 1, _TIOCLINUX, equal=True, result=eperm)
    for nr in keyring:
        code += _deny(nr, eperm)
    if not network:
        code += _when(socket, 0, _AF_UNIX, equal=False, result=_errno(errno.EACCES))
        code += _deny(_IO_URING_SETUP, _errno(errno.ENOSYS))
    return [*code, (_RET_K, 0, 0, _RET_ALLOW)]


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def install(network: bool) -> None:
    """Install the filter on this thread; ``no_new_privs`` must already be set."""
    code = program(os.uname().machine, network)
    filters = (_Filter * len(code))(*(_Filter(*ins) for ins in code))
    prog = _Program(len(code), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise SeccompError(f"cannot install the filter: {os.strerror(ctypes.get_errno())}")
