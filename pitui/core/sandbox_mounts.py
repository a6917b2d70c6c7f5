"""The private mount namespace of a sandboxed command: read-only everywhere but its places.

Imported by the launcher (:mod:`pitui.core.sandbox_exec`), so only ``os``, ``ctypes`` and
``struct`` (no ``from __future__``, no ctypes structures: each costs the launcher time).
Landlock grants are additive: once the project is writable, nothing beneath it can be
made read-only, and Landlock cannot stop ``chmod``/``chown``/``utime``/``setxattr``
outside before ABI 7 either. A mount namespace can: in a copy of the mount table that
only this command sees (nothing propagates back),

1. every mount is made read-only (``mount_setattr(AT_RECURSIVE)``, Linux 5.12);
2. each writable place is bound onto itself read-write (``nodev``, ``nosuid``), with
   the mounts beneath it that were read-write;
3. the paths pitui names read-only (the project's ``.git`` and ``.pitui``:
   :mod:`pitui.core.sandbox_protected`) are bound onto themselves read-only;
4. ``/dev/pts`` is a new devpts instance (and ``/dev/ptmx`` its ``ptmx``): the command's
   own terminals work, the user's terminal is not there to be opened;
5. the folders where other programs make unix sockets at any time are replaced
   (:class:`Masks`): the temp dirs by the session's private scratch folder, ``/dev/shm``
   by a fresh tmpfs, ``/run/user`` (and ``$XDG_RUNTIME_DIR``) and a temp dir that is not
   writable by an empty read-only one, so a tmux server, ssh-agent or D-Bus started
   after the command was is out of its sight too; a place that lay beneath such a
   folder (a project in ``/tmp``) is carried over with ``open_tree``;
6. the remaining sockets pitui names (every filesystem unix socket outside the project
   that exists now: :mod:`pitui.core.sandbox_sockets`) are covered by ``/dev/null``,
   so connecting finds no socket.

The command gets an IPC namespace of its own as well (System V shared memory and
message queues, POSIX message queues). Root does this directly; anyone else first
enters a new user namespace mapping only their own uid and gid. :class:`MountError`
says why when the kernel refuses.
"""

import ctypes
import os
import struct

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWIPC = 0x00020000, 0x10000000, 0x08000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC = 0x2, 0x4, 0x8, 0x1000, 0x4000
_MS_PRIVATE = 1 << 18
_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE = 442, -100, 0x8000
_RDONLY, _NOSUID, _NODEV = 0x1, 0x2, 0x4
_OPEN_TREE, _MOVE_MOUNT = 428, 429  # Linux 5.2, the same on every architecture
_TREE_FLAGS = 0x1 | 0x100  # OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW
_CLONE_TREE = 0x1 | 0x80000 | 0x8000  # OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE
_FROM_FD = 0x4  # MOVE_MOUNT_F_EMPTY_PATH (and not T_SYMLINKS: onto the link itself)
PTS_DIR, PTMX = "/dev/pts", "/dev/ptmx"


class MountError(Exception):
    """The namespace could not be made (the message says which step and why)."""


class Masks:
    """Folders replaced in the namespace (a plain class: dataclasses cost an import)."""

    def __init__(self) -> None:
        self.scratch = ""
        """The session's private temp folder, bound at each of :attr:`scratch_at`."""
        self.scratch_at: list[str] = []
        self.tmpfs: list[str] = []
        """Replaced by a fresh, writable tmpfs of this command's own (``/dev/shm``)."""
        self.empty: list[str] = []
        """Replaced by an empty, read-only tmpfs (``/run/user``)."""

    def targets(self) -> list[str]:
        """Every folder replaced, outermost first."""
        return sorted([*self.scratch_at, *self.tmpfs, *self.empty], key=len)


class _Mounts:
    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long

    def _check(self, result: int, step: str) -> None:
        if result != 0:
            raise MountError(f"{step}: {os.strerror(ctypes.get_errno())}")

    def unshare(self) -> None:
        uid, gid = os.geteuid(), os.getegid()
        # An IPC namespace too: System V shared memory, semaphores and message queues of
        # processes outside (a database's, an X server's) are not there to be written.
        if uid == 0 and self.libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC) == 0:
            return
        self._check(self.libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWIPC), "unshare")
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
            try:
                with open(f"/proc/self/{name}", "w", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                raise MountError(
                    f"cannot map the user namespace ({name}): {exc.strerror}"
                ) from None

    def setattr(
        self, path: str, set_: int, clear: int, *, recursive: bool, private: bool = False
    ) -> None:
        # struct mount_attr {u64 attr_set, attr_clr, propagation, userns_fd}
        attr = struct.pack("=QQQQ", set_, clear, _MS_PRIVATE if private else 0, 0)
        flags = _AT_RECURSIVE if recursive else 0
        result = self.libc.syscall(_MOUNT_SETATTR, _AT_FDCWD, path.encode(), flags, attr, len(attr))
        self._check(result, f"mount_setattr {path}")

    def private_ptys(self) -> bool:
        """A devpts instance of this namespace's own on /dev/pts; False if refused."""
        options = b"newinstance,ptmxmode=0666,mode=0620"
        flags = _MS_NOSUID | _MS_NOEXEC
        if self.libc.mount(b"devpts", PTS_DIR.encode(), b"devpts", flags, options) != 0:
            return False
        try:
            self.bind(f"{PTS_DIR}/ptmx", PTMX, 0)
        except MountError:
            return False
        return True

    def pin(self, link: str) -> None:
        """Mount the symbolic link ``link`` onto itself (``open_tree`` and ``move_mount``
        without following it): it still points where it did, and cannot be removed,
        renamed or replaced."""
        tree = int(self.libc.syscall(_OPEN_TREE, _AT_FDCWD, link.encode(), _TREE_FLAGS))
        if tree < 0:
            self._check(-1, f"open_tree {link}")
        try:
            moved = self.libc.syscall(_MOVE_MOUNT, tree, b"", _AT_FDCWD, link.encode(), _FROM_FD)
            self._check(moved, f"move_mount {link}")
        finally:
            os.close(tree)

    def clone(self, path: str) -> int:
        """A detached copy of the mounts at and beneath ``path`` (an fd for :meth:`attach`)."""
        tree = int(self.libc.syscall(_OPEN_TREE, _AT_FDCWD, path.encode(), _CLONE_TREE))
        if tree < 0:
            self._check(-1, f"open_tree {path}")
        return tree

    def attach(self, tree: int, target: str) -> None:
        try:
            moved = self.libc.syscall(_MOVE_MOUNT, tree, b"", _AT_FDCWD, target.encode(), _FROM_FD)
            self._check(moved, f"move_mount {target}")
        finally:
            os.close(tree)

    def tmpfs(self, target: str, mode: str) -> None:
        options = f"mode={mode}".encode()
        flags = _MS_NOSUID | _MS_NODEV
        result = self.libc.mount(b"tmpfs", target.encode(), b"tmpfs", flags, options)
        self._check(result, f"tmpfs {target}")

    def bind(self, source: str, target: str, flags: int = _MS_REC) -> None:
        result = self.libc.mount(source.encode(), target.encode(), None, _MS_BIND | flags, None)
        self._check(result, f"bind {target}")


def _unescape(field: str) -> str:
    """A mountinfo path: space, tab, newline and backslash are octal escapes."""
    if "\\" not in field:
        return field
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def writable_mounts() -> list[str]:
    """Mount points that are read-write now (``/proc/self/mountinfo``)."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) > 5 and "rw" in fields[5].split(","):
                    found.append(_unescape(fields[4]))
    except OSError:
        pass
    return found


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(paths: list[str]) -> list[str]:
    """``paths`` without those beneath another of them."""
    return [p for p in paths if not any(q != p and _beneath(p, q) for q in paths)]


def _replace(mounts: _Mounts, masks: Masks, scratch: dict[str, int], carried: list[str]) -> None:
    """Replace each of ``masks``' folders, carrying the ``carried`` mounts beneath one
    over onto the new one (their paths are made in it first)."""
    targets = masks.targets()
    for target in targets:
        inside = [p for p in _outermost(carried) if p != target and _beneath(p, target)]
        trees = [(path, mounts.clone(path)) for path in inside]
        if target in scratch:
            mounts.attach(scratch.pop(target), target)
            mounts.setattr(target, _NODEV | _NOSUID, _RDONLY, recursive=False)
        else:
            mounts.tmpfs(target, "1777" if target in masks.tmpfs else "0755")
        for path, tree in trees:
            os.makedirs(path, exist_ok=True)
            mounts.attach(tree, path)
        for later in targets:  # replaced next, while this one can still be written
            if later != target and _beneath(later, target):
                os.makedirs(later, exist_ok=True)
        if target in masks.empty:
            mounts.setattr(target, _RDONLY, 0, recursive=False)


def isolate(writable: list[str], read_only: list[str], cover: list[str], masks: Masks) -> bool:
    """Put this process in its own mount namespace: read-only but for ``writable``, with
    ``read_only`` bound read-only again, the folders of ``masks`` replaced and the
    sockets in ``cover`` covered by ``/dev/null``. True if it has terminals of its own
    (:data:`PTS_DIR`, :data:`PTMX` may then have ioctls)."""
    mounts = _Mounts()
    mounts.unshare()
    was_writable = writable_mounts()
    # Taken before any folder is replaced: the scratch folder itself lies in a temp dir.
    scratch = {target: mounts.clone(masks.scratch) for target in masks.scratch_at}
    mounts.setattr("/", _RDONLY, 0, recursive=True, private=True)
    for place in writable:
        mounts.bind(place, place)
        # The place itself, and the mounts beneath it that were writable, are again.
        inner = [m for m in was_writable if m != place and _beneath(m, place)]
        for mount in (place, *inner):
            try:
                mounts.setattr(mount, _NODEV | _NOSUID, _RDONLY, recursive=False)
            except MountError:
                continue  # read-only before we came (and locked so): it stays so
    for path in read_only:
        if os.path.islink(path):
            mounts.pin(path)
            continue
        mounts.bind(path, path)
        mounts.setattr(path, _RDONLY, 0, recursive=True)
    _replace(mounts, masks, scratch, [*writable, *read_only])
    ptys = mounts.private_ptys()
    for path in cover:
        try:
            mounts.bind("/dev/null", path, 0)
        except MountError:
            continue  # vanished since it was listed
    # The working directory still points into the mounts as they were: look it up again.
    os.chdir(os.getcwd())
    return ptys
