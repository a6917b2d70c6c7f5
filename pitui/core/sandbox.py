"""The OS sandbox for the model's bash commands under the ``workspace`` policy.

A sandboxed command reads everywhere but writes only inside the project and the temp
directories (plus ``sandbox.writablePaths``); with ``sandbox.network: false`` it cannot
open TCP connections either. The kernel enforces it on the command and every process it
starts, so ``rm -rf /elsewhere`` fails with "Permission denied" whatever the spelling.

Two backends, tried in this order (``sandbox.backend`` can force one):

* **Landlock** (Linux 5.13+): :mod:`pitui.core.sandbox_exec`, a small launcher run with
  ``python -S -I``, restricts itself and ``exec``s the shell. The network switch needs
  Landlock ABI 4 (Linux 6.7).
* **bubblewrap** (``bwrap``): the root filesystem mounted read-only, the writable places
  bound read-write, ``--unshare-net`` for the network switch.

When neither is available, :func:`find_sandbox` returns None and the gate does not run
bash unsandboxed under ``workspace``: print mode denies it (naming ``--approve all``),
the TUI asks.
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pitui.core.settings import SandboxSettings

SandboxKind = Literal["landlock", "bwrap"]
LAUNCHER = Path(__file__).with_name("sandbox_exec.py")
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_NETWORK_ABI = 4
# What a refused write (or connection) looks like in a command's output.
_REFUSED = re.compile(r"Permission denied|Read-only file system|Operation not permitted")
# Device files commands write to as a matter of course.
_DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How one session's bash commands are confined."""

    kind: SandboxKind
    writable: tuple[str, ...]
    """Real paths of the directories that stay writable (project first)."""
    network: bool = True
    """False: no TCP connections (Landlock) or no network at all (bubblewrap)."""

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the sandbox."""
        if self.kind == "landlock":
            options: list[str] = []
            for path in self.writable:
                options += ["--write", path]
            for path in _DEVICE_FILES:
                options += ["--write-file", path]
            if not self.network:
                options.append("--no-network")
            return [sys.executable, "-S", "-I", str(LAUNCHER), *options, "--", *argv]
        binds: list[str] = []
        for path in self.writable:
            binds += ["--bind", path, path]
        network = [] if self.network else ["--unshare-net"]
        return [
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", *binds, *network,
            "--die-with-parent", "--", *argv,
        ]  # fmt: skip

    def explain_refusal(self, output: str) -> str | None:
        """A note for the model when ``output`` shows a refused write, else None."""
        if not _REFUSED.search(output):
            return None
        network = "" if self.network else " and has no network"
        return (
            "[pitui sandbox] The sandbox denied this: under the workspace policy bash may "
            f"write only inside the project and the temp directories ({', '.join(self.writable)})"
            f"{network}. Anything else needs the user: they can run pitui with --approve all."
        )


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


def writable_places(cwd: Path, settings: SandboxSettings) -> tuple[str, ...]:
    """The project, the temp directories and ``writablePaths``, as real paths, once each."""
    candidates = [str(cwd), tempfile.gettempdir(), "/dev/shm"]
    if settings.writable_slash_tmp:
        candidates += ["/tmp", "/var/tmp"]
    candidates += [os.path.expanduser(p) for p in settings.writable_paths]
    found: dict[str, None] = {}
    for path in candidates:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            found.setdefault(real)
    return tuple(found)


async def find_sandbox(cwd: Path, settings: SandboxSettings) -> Sandbox | str:
    """The sandbox this machine can give bash in ``cwd``, or why there is none."""
    abi = await asyncio.to_thread(landlock_abi)
    want_landlock = settings.backend in ("auto", "landlock") and abi >= 1
    # Turning the network off with Landlock needs ABI 4; bubblewrap can always do it.
    if want_landlock and (settings.network or abi >= _LANDLOCK_NETWORK_ABI):
        places = await asyncio.to_thread(writable_places, cwd, settings)
        return Sandbox("landlock", places, settings.network)
    if settings.backend in ("auto", "bwrap") and await bwrap_works():
        places = await asyncio.to_thread(writable_places, cwd, settings)
        return Sandbox("bwrap", places, settings.network)
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
