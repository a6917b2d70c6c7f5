"""What a sandboxed command may do: rules the launcher applies before its child ``exec``s.

Imported by the launcher (:mod:`pitui.core.sandbox_exec`), which must start fast: only
``ctypes``, ``errno``, ``os`` and ``struct`` (already loaded by ctypes), no ctypes
structures (each costs its class), one module for the three sets of rules. None of them
can be lifted by the command or anything it starts.

**Capabilities** (root only). Landlock confines the filesystem, not what root may do to
the machine: without this a sandboxed ``reboot -f``, ``insmod``, ``date -s``,
``ip link set … down``, a raw socket, ``mknod`` of the disk or ``TIOCSTI`` into another
terminal (CAP_SYS_ADMIN) would work. Root keeps what work in the project needs: CHOWN,
DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, FSETID, KILL, SETGID, SETUID, NET_BIND_SERVICE,
IPC_LOCK, SYS_CHROOT.

**seccomp**, for the syscalls Landlock cannot judge; they fail with an error:

* ``ioctl(TIOCSTI)`` and ``ioctl(TIOCLINUX)``: pushing keystrokes into a terminal
  (Landlock ABI 5 also denies device ioctls, this covers older kernels);
* ``add_key``, ``request_key``, ``keyctl``: the session keyring is the user's, shared with
  what runs outside (Docker's default profile refuses them too);
* ``socket(AF_UNIX, …)`` unless the user's settings allow unix sockets
  (``sandbox.allowUnixSockets``): connecting to a filesystem socket is not a write, and
  Landlock (to ABI 7 at least) does not judge it, yet behind an ssh ``ControlMaster``, a
  gpg-agent or ``/var/run/docker.sock`` is a server outside that runs what it is told
  (Anthropic's sandbox-runtime does the same on Linux). ``socketpair`` stays allowed: a
  connected pair reaches nothing outside (asyncio's self-pipe, node's child stdio);
* with the network off, ``socket()`` of any family but ``AF_UNIX`` (UDP, raw, packet,
  netlink: Landlock only knows TCP);
* with either off, ``io_uring_setup`` (io_uring makes sockets without the ``socket``
  syscall);
* syscalls of another ABI (i386 or x32 on x86-64), which would slip past the numbers.

Built for x86-64 and aarch64; elsewhere :func:`install_seccomp` raises.

**Landlock.** Reading and executing everywhere; creating, writing, truncating, renaming
and deleting only beneath each writable directory (and on each writable file, e.g.
``/dev/null``); device nodes nowhere. Each newer ABI is used when the kernel has it:

* ABI 2/3: renames across directories and truncation are handled (so granted only inside);
* ABI 4: with the network off, no TCP bind or connect;
* ABI 5: no ioctl on device files opened in the sandbox (``TIOCSTI`` into a terminal) but
  the command's own terminals (a devpts instance of its mount namespace);
* ABI 6: no signals to processes outside the sandbox, no connections to abstract unix
  sockets made outside it (tmux, X11 and D-Bus use them).
"""

import ctypes
import errno
import functools
import os
import struct


class RuleError(Exception):
    """A rule could not be built or applied here (the message says why)."""


def libc() -> ctypes.CDLL:
    """The C library, with errno kept and ``syscall`` returning a long."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _why() -> str:
    return os.strerror(ctypes.get_errno())


# ---- capabilities --------------------------------------------------------------------

_PR_CAPBSET_DROP = 24
DROPPED_CAPABILITIES = {
    "SETPCAP": 8, "LINUX_IMMUTABLE": 9, "NET_BROADCAST": 11, "NET_ADMIN": 12, "NET_RAW": 13,
    "IPC_OWNER": 15, "SYS_MODULE": 16, "SYS_RAWIO": 17, "SYS_PTRACE": 19, "SYS_PACCT": 20,
    "SYS_ADMIN": 21, "SYS_BOOT": 22, "SYS_NICE": 23, "SYS_RESOURCE": 24, "SYS_TIME": 25,
    "SYS_TTY_CONFIG": 26, "MKNOD": 27, "LEASE": 28, "AUDIT_WRITE": 29, "AUDIT_CONTROL": 30,
    "SETFCAP": 31, "MAC_OVERRIDE": 32, "MAC_ADMIN": 33, "SYSLOG": 34, "WAKE_ALARM": 35,
    "BLOCK_SUSPEND": 36, "AUDIT_READ": 37, "PERFMON": 38, "BPF": 39, "CHECKPOINT_RESTORE": 40,
}  # fmt: skip
"""What root gives up, by name (bubblewrap's ``--cap-drop CAP_…``) and number."""


def drop_capabilities(libc: ctypes.CDLL) -> None:
    """Take the dropped capabilities out of the bounding set: root's next ``exec`` gets
    none of them, and nothing can get them back. SETPCAP goes last (dropping needs it)."""
    for number in sorted(DROPPED_CAPABILITIES.values(), key=lambda n: n == 8):
        libc.prctl(_PR_CAPBSET_DROP, number, 0, 0, 0)  # EINVAL: this kernel lacks it


# ---- seccomp ---------------------------------------------------------------------------

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_ABS_W, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARGS = 0, 4, 16  # struct seccomp_data
_X32_BIT = 0x40000000
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_AF_UNIX = 1
_IO_URING_SETUP = 425  # the same on both architectures
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


@functools.cache
def this_machine() -> str:
    """``os.uname().machine``, asked once: it cannot change while the process runs."""
    return os.uname().machine


def has_seccomp_filter(machine: str) -> bool:
    """There is a filter for ``machine`` (``os.uname().machine``)."""
    return machine in _ARCHES


def seccomp_program(machine: str, network: bool, unix_sockets: bool) -> list[Instruction]:
    """The filter for ``machine`` (``os.uname().machine``)."""
    if not has_seccomp_filter(machine):
        raise RuleError(f"no seccomp filter for {machine} (x86_64 and aarch64 only)")
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
    if not unix_sockets:
        code += _when(socket, 0, _AF_UNIX, equal=True, result=eperm)
    if not network:
        code += _when(socket, 0, _AF_UNIX, equal=False, result=_errno(errno.EACCES))
    if not (network and unix_sockets):
        code += _deny(_IO_URING_SETUP, _errno(errno.ENOSYS))
    return [*code, (_RET_K, 0, 0, _RET_ALLOW)]


@functools.cache
def seccomp_bytes(machine: str, network: bool, unix_sockets: bool) -> bytes:
    """The filter as the kernel reads it: ``struct sock_filter`` {u16 code; u8 jt; u8 jf;
    u32 k} after another (what bubblewrap's ``--seccomp FD`` takes). Built once per
    argument set: a function of them alone."""
    program = seccomp_program(machine, network, unix_sockets)
    return b"".join(struct.pack("=HBBI", *i) for i in program)


def install_seccomp(libc: ctypes.CDLL, network: bool, unix_sockets: bool) -> None:
    """Install the filter on this thread; ``no_new_privs`` must already be set."""
    program = seccomp_bytes(this_machine(), network, unix_sockets)
    # struct sock_fprog {u16 len; ptr}
    filters = ctypes.create_string_buffer(program)
    prog = ctypes.create_string_buffer(
        struct.pack("=H6xQ", len(program) // 8, ctypes.addressof(filters))
    )
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, prog, 0, 0) != 0:
        raise RuleError(f"cannot install the seccomp filter: {_why()}")


# ---- Landlock --------------------------------------------------------------------------

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


def _fs_rights(abi: int) -> int:
    rights = _ALL_V1
    if abi >= 2:
        rights |= _REFER  # without it, renames across directories are always refused
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV  # handled, and granted only on the namespace's terminals
    return rights


def _ruleset_attr(abi: int, network: bool) -> tuple[int, bytes]:
    """The handled fs rights and ``struct landlock_ruleset_attr`` as this kernel knows it
    (older ones know fewer fields)."""
    fs = _fs_rights(abi)
    if abi < 4:
        if not network:
            raise RuleError(f"turning the network off needs Landlock ABI 4 (this has {abi})")
        return fs, struct.pack("=Q", fs)
    net = 0 if network else _NET_BIND_TCP | _NET_CONNECT_TCP
    if abi < 6:
        return fs, struct.pack("=QQ", fs, net)
    return fs, struct.pack("=QQQ", fs, net, _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a writable place that does not exist needs no rule
    try:
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd))  # packed: 12 bytes
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rule, 0) != 0:
            raise RuleError(f"cannot add a Landlock rule for {path}: {_why()}")
    finally:
        os.close(fd)


def landlock_abi(libc: ctypes.CDLL) -> int:
    """The kernel's Landlock ABI, 0 when it has none."""
    return max(int(libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)), 0)


def build_ruleset(
    libc: ctypes.CDLL,
    dirs: list[str],
    files: list[str],
    network: bool,
    terminals: tuple[str, ...] = (),
) -> int:
    """A ruleset (its fd) allowing writes only to the given places; :func:`enter_ruleset`
    applies it. Building it restricts nothing, so the launcher does it before it forks.

    ``terminals``: where device ioctls stay allowed (the namespace's own devpts and its
    ptmx, so the command's own terminals work).
    """
    abi = landlock_abi(libc)
    if abi < 1:
        raise RuleError(f"Landlock is not available: {_why()}")
    handled, attr = _ruleset_attr(abi, network)
    ruleset = int(libc.syscall(_CREATE_RULESET, attr, len(attr), 0))
    if ruleset < 0:
        raise RuleError(f"cannot create a Landlock ruleset: {_why()}")
    _allow(libc, ruleset, "/", _READ)
    for path in dirs:
        _allow(libc, ruleset, path, handled & ~(_MAKE_CHAR | _MAKE_BLOCK | _IOCTL_DEV))
    for path in files:
        _allow(libc, ruleset, path, _READ_FILE | _WRITE_FILE | (handled & _TRUNCATE))
    for path in terminals:
        _allow(libc, ruleset, path, _READ_FILE | _WRITE_FILE | (handled & _IOCTL_DEV))
    return ruleset


def enter_ruleset(libc: ctypes.CDLL, ruleset: int) -> None:
    """Restrict this thread, and all it will run, to ``ruleset``, for good (after
    ``no_new_privs``, which Landlock requires without CAP_SYS_ADMIN)."""
    if libc.syscall(_RESTRICT_SELF, ruleset, 0) != 0:
        raise RuleError(f"cannot restrict: {_why()}")
    os.close(ruleset)
