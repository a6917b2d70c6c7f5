"""Sockets made after a sandboxed command started, the private temp dirs, System V IPC,
bubblewrap's seccomp filter: real processes (tmux, bwrap) on a real kernel (issue 21)."""

from __future__ import annotations

import asyncio
import ctypes
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.core.sandbox import SandboxKind
from tests.core.sandbox_support import (
    HAS_BWRAP,
    NAMESPACES,
    SANDBOX_PYTHON,
    backends,
    output_of,
    sandboxed_bash,
    unix_server,
)
from tests.core.sandbox_support import visible_outside as visible_outside

from .helpers import run, text

each_backend = pytest.mark.parametrize("kind", backends())
PY = SANDBOX_PYTHON
needs_namespaces = pytest.mark.skipif(
    not NAMESPACES, reason="no mount namespace here (unshare refused): temp dirs are shared"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def late_dir() -> Iterator[Path]:
    """A folder in the real /tmp, where tmux and ssh-agent make theirs."""
    folder = Path(tempfile.mkdtemp(prefix="pitui-late-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _wait_then_connect(project: Path, paths: list[str]) -> str:
    """A command that waits (3 s at most) for each socket to appear, then connects."""
    (project / "probe.py").write_text(
        "import os, socket, sys, time\n"
        "for path in sys.argv[1:]:\n"
        "    end = time.monotonic() + 3\n"
        "    while not os.path.exists(path) and time.monotonic() < end:\n"
        "        time.sleep(0.05)\n"
        "    try:\n"
        "        s = socket.socket(socket.AF_UNIX); s.connect(path); print('CONNECTED', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.strerror)\n"
    )
    return f"{PY} probe.py " + " ".join(paths)


def _run(argv: list[str]) -> None:
    subprocess.run(argv, check=True, capture_output=True)


def _runtime_dir() -> Path | None:
    """A fresh folder in /run/user, as a login would make (root only)."""
    if os.geteuid() != 0 or not os.path.isdir("/run/user"):
        return None
    folder = Path(tempfile.mkdtemp(prefix="pitui-late-", dir="/run/user"))
    return folder


@each_backend
@needs_namespaces
async def test_sockets_made_after_the_command_started_cannot_be_reached(
    kind: SandboxKind, project: Path, late_dir: Path
) -> None:
    """Covering the sockets that exist at the start cannot stop a server started later:
    the temp dirs, /dev/shm and /run/user are the sandbox's own (what holds with unix
    sockets allowed; by default no unix socket can be opened at all)."""
    runtime = _runtime_dir()
    paths = [str(late_dir / "agent.sock"), f"/dev/shm/pitui-late-{os.getpid()}.sock"]
    if runtime is not None:
        paths.append(str(runtime / "bus"))
    else:
        print("not testing /run/user: needs root")
    try:
        task = asyncio.ensure_future(
            output_of(
                sandboxed_bash(kind, project, allow_unix_sockets=True),
                _wait_then_connect(project, paths),
            )
        )
        await asyncio.sleep(0.4)  # the command is running, the servers start now
        servers = [unix_server(path) for path in paths]
        for server in servers:
            server.__enter__()
        try:
            output = await task
        finally:
            for server in servers:
                server.__exit__(None, None, None)
    finally:
        if runtime is not None:
            shutil.rmtree(runtime, ignore_errors=True)
        os.unlink(paths[1])
    assert "CONNECTED" not in output, output
    assert output.count("refused") == len(paths), output


@each_backend
@needs_namespaces
async def test_a_tmux_server_started_later_cannot_run_anything(
    kind: SandboxKind, project: Path, late_dir: Path, visible_outside: Path
) -> None:
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    socket_path, marker = late_dir / "tmux.sock", visible_outside / "pwned"
    command = (
        f"for i in $(seq 60); do [ -S {socket_path} ] && break; sleep 0.05; done; "
        f"{tmux} -S {socket_path} run-shell 'touch {marker}'; echo tried"
    )
    tool = sandboxed_bash(kind, project, allow_unix_sockets=True)  # the masks, not seccomp
    task = asyncio.ensure_future(output_of(tool, command))
    await asyncio.sleep(0.4)
    server = [tmux, "-S", str(socket_path)]
    await asyncio.to_thread(_run, [*server, "new-session", "-d", "-x", "80", "-y", "24"])
    try:
        output = await task
    finally:
        await asyncio.to_thread(subprocess.run, [*server, "kill-server"], check=False)
    assert "tried" in output
    assert not marker.exists(), output


@each_backend
@needs_namespaces
async def test_the_temp_dirs_are_the_sessions_own_and_last_across_calls(
    kind: SandboxKind, project: Path
) -> None:
    tool = sandboxed_bash(kind, project)
    name = f"pitui-own-{os.getpid()}"
    await run(tool, command=f"echo kept > /tmp/{name} && echo also > /var/tmp/{name}.v")
    host = [Path("/tmp", name), Path("/var/tmp", f"{name}.v")]
    assert not any(path.is_file() for path in host)
    assert text(await run(tool, command=f"cat /tmp/{name}")) == "kept\n"
    assert tool.sandbox is not None and tool.sandbox.scratch is not None
    with open(os.path.join(tool.sandbox.scratch, f"{name}.v")) as handle:  # noqa: ASYNC230
        assert handle.read() == "also\n"  # one folder for both


@each_backend
@needs_namespaces
async def test_git_python_and_npm_still_work_in_the_project(
    kind: SandboxKind, project: Path
) -> None:
    """What the private temp dirs and /dev/shm must not break: git, a venv, multiprocessing
    (its semaphores live in /dev/shm), npm scripts."""
    await asyncio.to_thread(_run, ["git", "init", "-q", str(project)])
    (project / "a.txt").write_text("a\n")
    steps = [
        "git status --short",
        "git diff --stat HEAD 2>/dev/null; true",
        f"{PY} -c 'import multiprocessing as m; print(m.Pool(2).map(abs, [-1, -2]))'",
        f"{PY} -c 'import tempfile; print(tempfile.NamedTemporaryFile().name[:5])'",
    ]
    if shutil.which("npm"):
        (project / "package.json").write_text('{"name": "p", "scripts": {"hi": "echo npm-ok"}}')
        steps.append("npm run -s hi")
    output = await output_of(sandboxed_bash(kind, project), " && ".join(steps))
    assert "?? a.txt" in output and "[1, 2]" in output and "/tmp/" in output, output
    assert "npm-ok" in output or not shutil.which("npm"), output


_SECCOMP_PROBE = (
    "import ctypes, socket\n"
    "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('Seccomp:')][0])\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "print('keyctl', libc.syscall({keyctl}, 0, -3, 0), ctypes.get_errno())\n"
    "try:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('UDP')\n"
    "except OSError as exc:\n    print('no UDP', exc.errno)\n"
)


@pytest.mark.skipif(not HAS_BWRAP, reason="bwrap is not installed or cannot sandbox here")
@pytest.mark.parametrize("network", [True, False], ids=["network", "no-network"])
async def test_bwrap_runs_the_command_under_the_seccomp_filter(
    project: Path, network: bool
) -> None:
    keyctl = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
    if keyctl is None:
        pytest.skip(f"no seccomp filter for {os.uname().machine}")
    (project / "probe.py").write_text(_SECCOMP_PROBE.format(keyctl=keyctl))
    output = await output_of(sandboxed_bash("bwrap", project, network=network), f"{PY} probe.py")
    lines = output.splitlines()
    assert lines[0] == "2", output  # mode 2: a filter
    assert lines[1] == "keyctl -1 1", output  # EPERM: the user's keyring is out of reach
    assert lines[2] == ("UDP" if network else "no UDP 13"), output  # EACCES with it off


@each_backend
@needs_namespaces
async def test_the_full_output_log_can_be_read_by_the_next_command(
    kind: SandboxKind, project: Path
) -> None:
    tool = sandboxed_bash(kind, project)
    result = await run(tool, command="seq 1 20000")  # past 50 KB: spilled to a log
    path = (result.details or {}).get("fullOutputPath")
    assert isinstance(path, str), result.details
    assert text(await run(tool, command=f"tail -n 1 {path}")) == "20000\n"


def test_scratch_folders_of_pitui_processes_that_are_gone_are_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.core.sandbox import make_scratch

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"pitui-sandbox-{dead.pid}-abc"
    alive = tmp_path / f"pitui-sandbox-{os.getppid()}-abc"
    for folder in (stale, alive):
        (folder / "x").mkdir(parents=True)
    mine = Path(make_scratch())
    assert (
        not stale.exists()
        and alive.exists()
        and mine.name.startswith(f"pitui-sandbox-{os.getpid()}-")
    )


_SHM_PROBE = """\
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
shmid = libc.shmget(int(sys.argv[1]), 4096, 0)
if shmid < 0:
    print("no segment", ctypes.get_errno())
else:
    ctypes.memmove(libc.shmat(shmid, None, 0), b"PWNED", 5)
    print("written")
"""


@each_backend
@needs_namespaces
async def test_system_v_shared_memory_outside_cannot_be_written(
    kind: SandboxKind, project: Path
) -> None:
    """A database's or an X server's segment: the command has an IPC namespace of its own."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    key = 0x5EC00000 + os.getpid() % 0xFFFF
    shmid = libc.shmget(key, 4096, 0o1600)  # IPC_CREAT | 0600
    if shmid < 0:
        pytest.skip(f"no System V shared memory here (errno {ctypes.get_errno()})")
    address = libc.shmat(shmid, None, 0)
    try:
        (project / "shm.py").write_text(_SHM_PROBE)
        output = await output_of(sandboxed_bash(kind, project), f"{PY} shm.py {key}")
        assert "no segment" in output and "written" not in output, output
        assert ctypes.string_at(address, 5) == bytes(5)
    finally:
        libc.shmdt(ctypes.c_void_p(address))
        libc.shmctl(shmid, 0, None)  # IPC_RMID
