"""The capabilities root gives up inside the sandbox.

Imported by the launcher (:mod:`pitui.core.sandbox_exec`) and by :mod:`pitui.core.sandbox`
(bubblewrap's ``--cap-drop``), so only ``ctypes``. Landlock confines the filesystem, not
what root may do to the machine: without this a sandboxed ``reboot -f``, ``insmod``,
``date -s``, ``ip link set … down``, a raw socket, ``mknod`` of the disk or ``TIOCSTI``
into another terminal (CAP_SYS_ADMIN) would all work. Root keeps what ordinary work in
the project needs: CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, FSETID, KILL, SETGID,
SETUID, NET_BIND_SERVICE, IPC_LOCK, SYS_CHROOT.
"""

from __future__ import annotations

import ctypes

_PR_CAPBSET_DROP = 24
DROPPED_CAPABILITIES = {
    "SETPCAP": 8, "LINUX_IMMUTABLE": 9, "NET_BROADCAST": 11, "NET_ADMIN": 12, "NET_RAW": 13,
    "IPC_OWNER": 15, "SYS_MODULE": 16, "SYS_RAWIO": 17, "SYS_PTRACE": 19, "SYS_PACCT": 20,
    "SYS_ADMIN": 21, "SYS_BOOT": 22, "SYS_NICE": 23, "SYS_RESOURCE": 24, "SYS_TIME": 25,
    "SYS_TTY_CONFIG": 26, "MKNOD": 27, "LEASE": 28, "AUDIT_WRITE": 29, "AUDIT_CONTROL": 30,
    "SETFCAP": 31, "MAC_OVERRIDE": 32, "MAC_ADMIN": 33, "SYSLOG": 34, "WAKE_ALARM": 35,
    "BLOCK_SUSPEND": 36, "AUDIT_READ": 37, "PERFMON": 38, "BPF": 39, "CHECKPOINT_RESTORE": 40,
}  # fmt: skip


def drop(libc: ctypes.CDLL) -> None:
    """Take the dropped capabilities out of the bounding set: root's next ``exec`` gets
    none of them, and nothing can get them back. SETPCAP goes last (dropping needs it)."""
    for number in sorted(DROPPED_CAPABILITIES.values(), key=lambda n: n == 8):
        libc.prctl(_PR_CAPBSET_DROP, number, 0, 0, 0)  # EINVAL: this kernel lacks it
