"""The OS sandbox for the model's bash commands under the ``workspace`` policy.

A sandboxed command reads everywhere but writes only inside the project and the temp
directories (plus ``sandbox.writablePaths``), with the project's ``.git`` and ``.pitui``
read-only; it has no terminal, cannot signal processes outside, open a unix socket
(unless the user's ``sandbox.allowUnixSockets``: then those of tmux, ssh-agent or D-Bus
are still hidden or covered) or outlive its call; with ``sandbox.network: false`` it
opens no TCP, UDP or raw sockets. The kernel enforces it on the command and every process it
starts, so ``rm -rf /elsewhere`` fails with "Permission denied" whatever the spelling.

Two backends, tried in this order (``sandbox.backend`` can force one):

* **Landlock** (Linux 5.13+): :mod:`pitui.core.sandbox_exec`, a small launcher run with
  ``python -S -I``, makes a private mount namespace, confines a child (capabilities,
  seccomp, Landlock), runs the shell in it and ends whatever is left when it exits.
* **bubblewrap** (``bwrap``): the root filesystem mounted read-only, the writable places
  bound read-write, the protected entries and sockets bound over, the same folders
  replaced, its own pid and IPC namespaces, the same seccomp filter (``--seccomp FD``);
  ``--unshare-net`` for the network switch. Preferred when Landlock has no namespace.

With a mount namespace (both backends, usually), the temp dirs (``$TMPDIR``, ``/tmp``,
``/var/tmp``) are the session's own scratch folder, ``/dev/shm`` is fresh for each
command and ``/run/user`` is empty: where other programs make their unix sockets, the
command sees nothing of theirs, including sockets made after it started. The tools the
user installed there and put on ``PATH`` (a venv, a node_modules' ``.bin``) are shown in
them read-only (:func:`path_tools`); nothing else of the real temp dirs is.

When neither is available, :func:`find_sandbox` returns why and the gate does not run
bash unsandboxed under ``workspace``: print mode denies it (naming ``--approve all``),
the TUI asks. What a machine's sandbox cannot contain is :attr:`Sandbox.notice`.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Literal

import msgspec

from pitui.core.sandbox_protected import protected_paths
from pitui.core.sandbox_rules import (
    DROPPED_CAPABILITIES,
    RuleError,
    has_seccomp_filter,
    seccomp_bytes,
    this_machine,
)
from pitui.core.sandbox_sockets import beneath, outside_sockets
from pitui.core.settings import SandboxSettings
from pitui.lazy_pattern import lazy_pattern

SandboxKind = Literal["landlock", "bwrap"]
LAUNCHER = Path(__file__).with_name("sandbox_exec.py")
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_NETWORK_ABI = 4
_CAP_SYS_ADMIN = 21
# What a refused write (or connection) looks like in a command's output.
_REFUSED = lazy_pattern(r"Permission denied|Read-only file system|Operation not permitted")
# Device files commands write to as a matter of course.
_DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
_SHM = "/dev/shm"
_SLASH_TMP = ("/tmp", "/var/tmp")
SOCKET_VARIABLES = frozenset(
    {
        "TMUX", "TMUX_PANE", "STY", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID",
        "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
        "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "KITTY_LISTEN_ON",
        "WEZTERM_UNIX_SOCKET", "NVIM", "NVIM_LISTEN_ADDRESS", "VSCODE_IPC_HOOK_CLI",
        "VSCODE_GIT_IPC_HANDLE", "DOCKER_HOST",
    }
)  # fmt: skip
"""Environment variables naming a socket that leads out of the sandbox (multiplexers,
agents, display servers, editors, docker): removed from every sandboxed command's env."""


class Masks(msgspec.Struct, frozen=True):
    """The folders a command's mount namespace replaces (see :mod:`sandbox_mounts`)."""

    scratch_at: tuple[str, ...] = ()
    """The temp dirs, each the session's scratch folder."""
    tmpfs: tuple[str, ...] = ()
    """Fresh and writable for each command (``/dev/shm``)."""
    empty: tuple[str, ...] = ()
    """Empty and read-only (``/run/user``, a temp dir that is not writable)."""

    def targets(self) -> tuple[str, ...]:
        return (*self.scratch_at, *self.tmpfs, *self.empty)


class SandboxedCommand(msgspec.Struct):
    """A command line ready to spawn, and the file descriptors it must inherit."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()

    def close(self) -> None:
        """Close this side's copies of :attr:`pass_fds` (once the command is spawned)."""
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = ()


class Sandbox(msgspec.Struct, frozen=True):
    """How one session's bash commands are confined."""

    kind: SandboxKind
    writable: tuple[str, ...]
    """Real paths of the directories that stay writable and shared: the project first,
    then ``writablePaths``."""
    network: bool = True
    """False: no TCP, UDP or raw sockets (Landlock + seccomp) or no network (bubblewrap)."""
    namespaces: bool = False
    """Landlock: the launcher makes a private mount namespace (bubblewrap always does)."""
    notice: str | None = None
    """What this machine's sandbox cannot contain, said once at startup (None: all of it)."""
    sockets_in: tuple[str, ...] = ()
    """Folders besides the project whose unix sockets stay reachable (``writablePaths``:
    ``/run/postgresql`` gives a test suite its database back)."""
    temp: tuple[str, ...] = msgspec.field(default_factory=tuple)
    """The writable temp dirs, real paths (``$TMPDIR``, and ``/tmp``, ``/var/tmp``)."""
    scratch: str | None = None
    """The session's private folder the temp dirs are in a mount namespace; None: they
    are shared with the rest of the machine (no namespace)."""
    git_writable: bool = False
    """A git command the user allowed: the git dir is writable but for its hooks, config
    and the rest of :data:`~pitui.core.sandbox_protected.GIT_KEPT`."""
    nested_git: tuple[str, ...] = ()
    """Git dirs in the project's subfolders, read-only whole (this call's, from
    :class:`~pitui.core.sandbox_git_watch.GitWatch`)."""
    unix_sockets: bool = False
    """True (the user's ``allowUnixSockets``): commands may open unix sockets, and reach
    those in the project and :attr:`sockets_in`; False: ``socket(AF_UNIX)`` fails."""
    tools: tuple[str, ...] = ()
    """The folders of the ``PATH`` entries in a temp dir (:func:`path_tools`), real
    paths: shown read-only where the namespace replaces that temp dir."""

    def unix_blocked(self) -> bool:
        """``socket(AF_UNIX)`` is refused by seccomp (not on a machine with no filter:
        there the sockets outside are covered instead). Asked on each bash call, and
        cheap: ``unix_sockets`` is fixed with the sandbox, the machine asked once."""
        return not self.unix_sockets and has_seccomp_filter(this_machine())

    def wrap(self, argv: list[str]) -> SandboxedCommand:
        """``argv`` run inside the sandbox.

        What to keep read-only and which sockets to cover is found now, for this command
        (a walk of a few folders: call this off the event loop).
        """
        if self.kind == "bwrap":
            return self._bwrap(argv)
        options: list[str] = []
        private = self._private()
        # Shared with the machine: the temp dirs without a scratch folder, /dev/shm
        # without a namespace (which gives each command a fresh one).
        shared = (
            *self.writable,
            *(() if self.scratch else self.temp),
            *(() if private else (_SHM,)),
        )
        for path in shared:
            options += ["--write", path]
        for path in _DEVICE_FILES:
            options += ["--write-file", path]
        if not self.network:
            options.append("--no-network")
        if self.unix_blocked():
            options.append("--no-unix-sockets")
        if private:
            masks = self.masks()
            options.append("--namespace")
            for path in protected_paths(self.writable[0], self.git_writable, self.nested_git):
                options += ["--read-only", path]
            for path in self._carried_tools(masks):  # bound read-only, carried into /tmp
                options += ["--read-only", path]
            if masks.scratch_at and self.scratch:
                options += ["--scratch", self.scratch]
            for flag, paths in (("--scratch-at", masks.scratch_at), ("--tmpfs", masks.tmpfs),
                                ("--empty", masks.empty)):  # fmt: skip
                for path in paths:
                    options += [flag, path]
            for path in self._sockets(masks):
                options += ["--cover", path]
        options += ["--parent", str(os.getpid())]
        return SandboxedCommand([sys.executable, "-S", "-I", str(LAUNCHER), *options, "--", *argv])

    def _private(self) -> bool:
        return self.kind == "bwrap" or self.namespaces

    def masks(self) -> Masks:
        """What this command's namespace replaces: the temp dirs (by the scratch folder,
        or shared when there is none), ``/dev/shm``, the runtime dirs, and ``/tmp`` or
        ``/var/tmp`` when they are not writable; never a folder the project holds."""
        # The scratch folder is at its own path too: a bash log pitui writes there
        # (/tmp/pitui-sandbox-…/pi-bash-….log) is where the model is told it is.
        temp = (*self.temp, self.scratch) if self.scratch else ()
        empty = [d for d in _SLASH_TMP if d not in self.temp] + _runtime_dirs()
        found = Masks(temp, (_SHM,), tuple(d for d in empty if os.path.isdir(d)))
        keep = [d for d in found.targets() if not any(beneath(d, p) for p in self.writable)]
        return Masks(*(tuple(d for d in group if d in keep) for group in
                       (found.scratch_at, found.tmpfs, found.empty)))  # fmt: skip

    def _carried_tools(self, masks: Masks) -> list[str]:
        """The :attr:`tools` in a folder the namespace replaces (and not in a writable
        place, which is carried over writable anyway)."""
        hidden = masks.targets()
        return [
            path for path in self.tools
            if any(beneath(path, folder) for folder in hidden)
            and not any(beneath(path, place) for place in self.writable)
        ]  # fmt: skip

    def _sockets(self, masks: Masks) -> list[str]:
        """The sockets to cover: those outside the reachable folders and not in a folder
        the namespace replaces anyway; none when no unix socket can be opened."""
        if self.unix_blocked():
            return []
        hidden = masks.targets()
        reachable = (self.writable[0], *self.sockets_in)
        return [
            path for path in outside_sockets(reachable)
            if not any(beneath(path, folder) for folder in hidden)
        ]  # fmt: skip

    def _bwrap(self, argv: list[str]) -> SandboxedCommand:
        masks = self.masks()
        options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in sorted(masks.targets(), key=len):  # outermost first
            if path in masks.scratch_at:
                options += ["--bind", self.scratch or path, path]
            else:
                options += ["--tmpfs", path]
        for path in (*self.writable, *(() if self.scratch else self.temp)):
            options += ["--bind", path, path]
        for path in self._carried_tools(masks):
            options += ["--ro-bind", path, path]
        for path in protected_paths(self.writable[0], self.git_writable, self.nested_git):
            if not os.path.islink(path):  # bwrap would follow it: the target is listed too
                options += ["--ro-bind", path, path]
        for path in self._sockets(masks):
            if not path.startswith(("/dev/", "/proc/")):  # bwrap made those afresh
                options += ["--ro-bind", "/dev/null", path]
        for path in masks.empty:
            options += ["--remount-ro", path]
        if os.geteuid() == 0:
            for cap in DROPPED_CAPABILITIES:
                options += ["--cap-drop", f"CAP_{cap}"]
        options += ["--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent"]
        if not self.network:
            options.append("--unshare-net")
        fds = _seccomp_fd(self.network, self.unix_sockets)
        if fds:
            options += ["--seccomp", str(fds[0])]
        return SandboxedCommand(["bwrap", *options, "--", *argv], fds)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` without the variables that lead to a terminal multiplexer or an agent:
        a command that finds the tmux socket could have the tmux server (outside the
        sandbox) run anything."""
        return {k: v for k, v in env.items() if k not in SOCKET_VARIABLES}

    def explain_refusal(self, output: str) -> str | None:
        """A note for the model when ``output`` shows a refused write, else None."""
        if not _REFUSED.search(output):
            return None
        gone = (("network", not self.network), ("unix sockets", self.unix_blocked()))
        lacks = [name for name, missing in gone if missing]
        network = f" and has no {' and no '.join(lacks)}" if lacks else ""
        protected = " (.git and .pitui in it stay read-only)" if self._private() else ""
        places = ", ".join((*self.writable, *self.temp))
        return (
            "[pitui sandbox] The sandbox denied this: under the workspace policy bash may "
            f"write only inside the project{protected} and the temp directories "
            f"({places}){network}. A git command that writes the repository (git commit, "
            "git checkout …) asks the user when it is a call of its own with nothing else in "
            "it. Anything else needs the user: they can run pitui with --approve all."
        )


def _seccomp_fd(network: bool, unix_sockets: bool) -> tuple[int, ...]:
    """A pipe holding the seccomp program for bubblewrap to read (empty: no filter for
    this machine; bubblewrap's own confinement is then all there is)."""
    try:
        program = seccomp_bytes(this_machine(), network, unix_sockets)
    except RuleError:
        return ()
    read, write = os.pipe()  # a few hundred bytes: far below the pipe's buffer
    try:
        os.write(write, program)
    finally:
        os.close(write)
    return (read,)


def _runtime_dirs() -> list[str]:
    """Where sessions keep their sockets: ``/run/user`` and ``$XDG_RUNTIME_DIR``."""
    found = ["/run/user"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and not beneath(os.path.realpath(runtime), "/run/user"):
        found.append(os.path.realpath(runtime))
    return found


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when there is none (or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    libc.syscall.restype = ctypes.c_long
    version = int(libc.syscall(_LANDLOCK_CREATE_RULESET, None, 0, 1))
    if version < 0 and ctypes.get_errno() in (errno.ENOSYS, errno.EOPNOTSUPP):
        return 0
    return max(version, 0)


async def bwrap_works() -> bool:
    """True if ``bwrap`` is installed and can make a sandbox here (user namespaces)."""
    binary = shutil.which("bwrap")
    if binary is None:
        return False
    try:
        proc = await asyncio.create_subprocess_exec(
            binary, "--ro-bind", "/", "/", "--dev", "/dev", "--", "true",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return False
    return await proc.wait() == 0


def _real_dirs(paths: list[str]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for path in paths:
        real = os.path.realpath(os.path.expanduser(path))
        if os.path.isdir(real):
            found.setdefault(real)
    return tuple(found)


def writable_places(cwd: Path, settings: SandboxSettings) -> tuple[str, ...]:
    """The project and ``writablePaths``, as real paths, once each."""
    return _real_dirs([str(cwd), *settings.writable_paths])


def temp_dirs(settings: SandboxSettings) -> tuple[str, ...]:
    """``$TMPDIR`` and (``writableSlashTmp``) ``/tmp`` and ``/var/tmp``, as real paths."""
    candidates = [tempfile.gettempdir()]
    if settings.writable_slash_tmp:
        candidates += list(_SLASH_TMP)
    return _real_dirs(candidates)


_BIN_FOLDERS = frozenset({"bin", ".bin", "sbin"})
_TOOL_LINKS_AT_MOST = 500
"""Symbolic links looked at in one ``PATH`` folder (a crowded ``.bin`` is not walked on)."""


def path_tools(path_env: str | None) -> tuple[str, ...]:
    """What of the temp dirs the ``PATH`` entries need, as real paths: each entry in a
    temp dir, as its install prefix when it is a ``bin`` folder (a venv, a node_modules:
    the tool needs its own files), and the folders their symbolic links lead to in a
    temp dir. Never a temp dir itself: the rest of it stays out of the command's sight."""
    roots = _real_dirs([tempfile.gettempdir(), *_SLASH_TMP])
    found: list[str] = []

    def add(folder: str) -> None:
        if not any(beneath(folder, kept) for kept in found):
            found[:] = [kept for kept in found if not beneath(kept, folder)] + [folder]

    for entry in (path_env or "").split(os.pathsep):
        real = os.path.realpath(entry) if os.path.isabs(entry) else ""
        folder = _tool_folder(real, roots)
        if folder is None or not os.path.isdir(real):
            continue
        add(folder)
        for target in _link_targets(real):
            linked = _tool_folder(os.path.dirname(target), roots)
            if linked is not None:
                add(linked)
    return tuple(found)


def _tool_folder(real: str, roots: tuple[str, ...]) -> str | None:
    """The folder to show for ``real`` (a ``bin`` folder: its parent), None when it is in
    no temp dir or would be one."""
    if not any(beneath(real, root) for root in roots) or real in roots:
        return None
    parent = os.path.dirname(real)
    if os.path.basename(real) in _BIN_FOLDERS and parent not in roots:
        return parent
    return real


def _link_targets(folder: str) -> list[str]:
    """Where the symbolic links in ``folder`` lead (real paths), the first few hundred."""
    targets: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for number, entry in enumerate(entries):
                if number >= _TOOL_LINKS_AT_MOST:
                    break
                if entry.is_symlink():
                    targets.append(os.path.realpath(entry.path))
    except OSError:
        pass
    return targets


_SCRATCH_PREFIX = "pitui-sandbox-"


def _sweep_scratch(temp: str) -> None:
    """Remove the scratch folders of pitui processes that are gone (killed, or ended by a
    signal without running ``atexit``): their names carry the pid."""
    try:
        names = [n for n in os.listdir(temp) if n.startswith(_SCRATCH_PREFIX)]
    except OSError:
        return
    for name in names:
        pid, dash, _ = name[len(_SCRATCH_PREFIX) :].partition("-")
        if not (pid.isdigit() and dash):  # mkdtemp's own letters hold no "-"
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(temp, name), ignore_errors=True)
        except OSError:
            continue  # alive, someone else's


def make_scratch() -> str:
    """A private folder (0700) for one session's temp dirs, removed when pitui exits (or
    by the next pitui, if this one is killed)."""
    temp = tempfile.gettempdir()
    _sweep_scratch(temp)
    folder = tempfile.mkdtemp(prefix=f"{_SCRATCH_PREFIX}{os.getpid()}-", dir=temp)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def build_sandbox(
    kind: SandboxKind,
    cwd: Path,
    settings: SandboxSettings,
    *,
    namespaces: bool = False,
    notice: str | None = None,
) -> Sandbox:
    """The sandbox of ``kind`` for ``cwd``: with a scratch folder for its temp dirs when
    it has a mount namespace (bubblewrap always has). Blocking (makes the folder)."""
    private = kind == "bwrap" or namespaces
    return Sandbox(
        kind,
        writable_places(cwd, settings),
        settings.network,
        namespaces,
        notice,
        _real_dirs(settings.writable_paths),
        temp_dirs(settings),
        make_scratch() if private else None,
        unix_sockets=settings.allow_unix_sockets,
        tools=path_tools(os.environ.get("PATH")) if private else (),
    )


def _has_cap_sys_admin() -> bool:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & (1 << _CAP_SYS_ADMIN))
    except (OSError, ValueError):
        pass
    return False


async def namespace_problem(places: tuple[str, ...]) -> str | None:
    """Why the launcher cannot make its private mount namespace here, None if it can.

    Root with CAP_SYS_ADMIN can (the launcher still fails closed if not); anyone else
    needs a user namespace, which some systems refuse: one launcher run tells.
    """
    if os.geteuid() == 0 and await asyncio.to_thread(_has_cap_sys_admin):
        return None
    probe = Sandbox("landlock", places[:1], namespaces=True).wrap(["true"])
    try:
        proc = await asyncio.create_subprocess_exec(
            *probe.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
    except OSError as exc:
        return str(exc)
    finally:
        probe.close()
    _, err = await proc.communicate()
    if proc.returncode == 0:
        return None
    return err.decode(errors="replace").strip().removeprefix("pitui sandbox: ") or "failed"


def _gaps(abi: int, namespace: str | None, *, unix_open: bool = False) -> str | None:
    """What the Landlock sandbox leaves open on this kernel, for the startup notice
    (``unix_open``: commands may open unix sockets, by the user's setting)."""
    gaps = []
    machine = this_machine()
    if not has_seccomp_filter(machine):
        unix_open = True
        gaps.append(f"no seccomp filter for {machine}: unix sockets cannot be turned off")
    if namespace is not None:
        sockets = ", outside unix sockets can be reached" if unix_open else ""
        gaps.append(
            f"{namespace}: .git and .pitui stay writable, files outside the project can "
            f"have their mode, owner and times changed{sockets}"
        )
    if abi < 6:
        abstract = " and reach abstract unix sockets" if unix_open else ""
        gaps.append(f"Landlock ABI {abi} (<6): commands can signal your other processes{abstract}")
    if not gaps:
        return None
    return "bash sandbox: " + "; ".join(gaps) + " (README: The bash sandbox)"


async def find_sandbox(cwd: Path, settings: SandboxSettings) -> Sandbox | str:
    """The sandbox this machine can give bash in ``cwd``, or why there is none."""
    abi = await asyncio.to_thread(landlock_abi)
    want_landlock = settings.backend in ("auto", "landlock") and abi >= 1
    # Turning the network off with Landlock needs ABI 4; bubblewrap can always do it.
    landlock_ok = want_landlock and (settings.network or abi >= _LANDLOCK_NETWORK_ABI)
    places = await asyncio.to_thread(writable_places, cwd, settings)
    namespace = await namespace_problem(places) if landlock_ok else None

    def build(kind: SandboxKind, namespaces: bool = False) -> Awaitable[Sandbox]:
        unix_open = settings.allow_unix_sockets
        notice = _gaps(abi, namespace, unix_open=unix_open) if kind == "landlock" else None
        return asyncio.to_thread(
            build_sandbox, kind, cwd, settings, namespaces=namespaces, notice=notice
        )

    # Without a namespace, bubblewrap (which may have its own way to one) contains more.
    if landlock_ok and (namespace is None or settings.backend == "landlock"):
        return await build("landlock", namespace is None)
    if settings.backend in ("auto", "bwrap") and await bwrap_works():
        return await build("bwrap")
    if landlock_ok:
        return await build("landlock")
    if abi >= 1 and want_landlock:
        missing = f"Landlock ABI {abi} cannot turn the network off (needs 4) and bwrap is absent"
    elif settings.backend == "bwrap":
        missing = "bwrap is not installed or cannot create a sandbox here"
    else:
        missing = "no Landlock in this kernel and no working bwrap"
    return (
        f"bash runs only in a sandbox under the workspace policy, and none is available "
        f"({missing}); run pitui with --approve all to allow shell commands without one"
    )
