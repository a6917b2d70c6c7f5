"""Unix sockets outside the project (issue 21): a seccomp filter refuses ``socket(AF_UNIX)``.

Behind an ssh ``ControlMaster`` socket in ``~/.ssh``, a gpg-agent in ``~/.gnupg``,
``/var/run/docker.sock`` or any daemon under ``/run`` is a server outside the sandbox
that runs what it is told. Landlock (to ABI 7) does not judge a pathname connect, and
covering the sockets that exist when the command starts misses one made later in a
folder the namespace does not replace (and, with no namespace, every one). Real servers,
real sandboxed processes; the user's ``allowUnixSockets`` lets them be opened again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest

from pitui.core.sandbox import SandboxKind
from pitui.core.sandbox_rules import has_seccomp_filter
from tests.core.sandbox_support import (
    HAS_BWRAP,
    LANDLOCK_ABI,
    NAMESPACES,
    SANDBOX_PYTHON,
    output_of,
    sandboxed_bash,
    unix_server,
)
from tests.core.sandbox_support import visible_outside as visible_outside

pytestmark = pytest.mark.skipif(
    not has_seccomp_filter(os.uname().machine),
    reason=f"no seccomp filter for {os.uname().machine} (x86_64 and aarch64 only)",
)
_NO_LANDLOCK = pytest.mark.skipif(LANDLOCK_ABI < 1, reason="the kernel has no Landlock")
_NO_BWRAP = pytest.mark.skipif(not HAS_BWRAP, reason="bwrap is not installed or cannot sandbox")
_NO_NAMESPACE = pytest.mark.skipif(not NAMESPACES, reason="no mount namespace for Landlock here")
each_sandbox = pytest.mark.parametrize(
    ("kind", "namespaces"),
    [
        pytest.param("landlock", True, marks=[_NO_LANDLOCK, _NO_NAMESPACE], id="landlock"),
        pytest.param("bwrap", True, marks=_NO_BWRAP, id="bwrap"),
        pytest.param("landlock", False, marks=_NO_LANDLOCK, id="landlock-no-namespace"),
    ],
)

_PROBE = """\
import os, socket, sys, time
for path in sys.argv[1:]:
    end = time.monotonic() + 3
    while not os.path.exists(path) and time.monotonic() < end:
        time.sleep(0.05)
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        print("CONNECTED", path)
    except OSError as exc:
        print("refused", path, exc.strerror)
a, b = socket.socketpair()
a.sendall(b"pair")
print("socketpair", b.recv(4).decode())
"""


@pytest.fixture
def home(visible_outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's home outside the project (and outside the temp dirs the sandbox replaces),
    with the folders ssh and gpg make their sockets in."""
    folder = visible_outside / "home"
    for name in (".ssh", ".gnupg"):
        (folder / name).mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("HOME", str(folder))
    return folder


def _daemon_socket() -> str | None:
    """A socket path under /run, where system daemons (docker) make theirs (root only)."""
    if os.geteuid() != 0 or not os.access("/run", os.W_OK):
        return None
    return f"/run/pitui-test-{os.getpid()}.sock"


async def _probe_with_late_servers(
    kind: SandboxKind,
    project: Path,
    paths: list[str],
    *,
    namespaces: bool,
    early: str = "",
    **settings: object,
) -> str:
    """Probe ``early`` and ``paths``, starting a server on each of ``paths`` once the
    command is running (an ssh ``ControlMaster`` made mid-command: covering what exists
    at the start misses it)."""
    (project / "probe.py").write_text(_PROBE)
    tool = sandboxed_bash(kind, project, namespaces=namespaces, **settings)
    command = f"{SANDBOX_PYTHON} probe.py {early} {' '.join(paths)}"
    task = asyncio.ensure_future(output_of(tool, command))
    await asyncio.sleep(0.4)
    servers = [unix_server(path) for path in paths]
    for server in servers:
        server.__enter__()
    try:
        return await task
    finally:
        for server in servers:
            server.__exit__(None, None, None)


@each_sandbox
async def test_no_unix_socket_outside_can_be_reached_but_socketpair_works(
    kind: SandboxKind, namespaces: bool, tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    paths = [str(home / ".ssh" / "cm-git@host:22"), str(home / ".gnupg" / "S.gpg-agent")]
    daemon = _daemon_socket()
    if daemon is None:
        print("not testing /run: needs root")
    else:
        paths.append(daemon)
    try:
        output = await _probe_with_late_servers(kind, project, paths, namespaces=namespaces)
    finally:
        if daemon is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(daemon)
    assert "CONNECTED" not in output, output
    assert output.count("Operation not permitted") == len(paths), output
    assert "socketpair pair" in output, output


@each_sandbox
async def test_an_existing_socket_outside_cannot_be_reached_either(
    kind: SandboxKind, namespaces: bool, tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = str(home / ".ssh" / "agent.sock")
    with unix_server(path), unix_server(str(project / "own.sock")):
        (project / "probe.py").write_text(_PROBE)
        tool = sandboxed_bash(kind, project, namespaces=namespaces)
        output = await output_of(tool, f"{SANDBOX_PYTHON} probe.py {path} own.sock")
    assert "CONNECTED" not in output and "Operation not permitted" in output, output
    assert "[pitui sandbox]" in output and "no unix sockets" in output, output


@each_sandbox
async def test_the_users_setting_allows_unix_sockets_again(
    kind: SandboxKind, namespaces: bool, tmp_path: Path, home: Path
) -> None:
    """``allowUnixSockets``: the project's sockets work; a late one outside is reachable
    too unless a namespace replaces its folder (what the README says it opens)."""
    project = tmp_path / "project"
    project.mkdir()
    late = str(home / ".ssh" / "cm-late")
    with unix_server(str(project / "own.sock")):
        output = await _probe_with_late_servers(
            kind, project, [late], early=str(project / "own.sock"),
            namespaces=namespaces, allow_unix_sockets=True,
        )  # fmt: skip
    assert f"CONNECTED {project / 'own.sock'}" in output, output
    assert f"CONNECTED {late}" in output, output
    assert "socketpair pair" in output, output
