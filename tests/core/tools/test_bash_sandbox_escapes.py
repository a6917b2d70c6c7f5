"""Ways out of the bash sandbox (issue 21), each tried with real processes on a real kernel.

Every test plays the hostile model: it runs what an attacker would through the bash tool
under the workspace sandbox and checks that nothing landed outside. Kernel features a
defence needs are detected; a test is skipped, saying why, where the machine lacks them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from pitui.ai.abort import AbortSignal
from pitui.core.sandbox import LAUNCHER, Sandbox, SandboxKind, build_sandbox
from pitui.core.settings import SandboxSettings
from pitui.core.tools.bash import BashError, BashTool
from tests.core.sandbox_support import (
    HAS_BWRAP,
    LANDLOCK_ABI,
    NAMESPACES,
    SANDBOX_PYTHON,
    backends,
    connect_probe,
    output_of,
    sandboxed_bash,
    unix_server,
)
from tests.core.sandbox_support import visible_outside as visible_outside

from .helpers import run, text

each_backend = pytest.mark.parametrize("kind", backends())
PY = SANDBOX_PYTHON


@pytest.fixture
def places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, visible_outside: Path
) -> tuple[Path, Path]:
    """(project, outside); the project is a git repository with pitui settings."""
    project, temp, outside = tmp_path / "project", tmp_path / "tmp", visible_outside
    for folder in (project, temp, project / ".pitui"):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".pitui" / "settings.json").write_text("{}\n")
    (outside / "keep.txt").write_text("precious\n")
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    return project, outside


def _tool(
    kind: SandboxKind,
    project: Path,
    *,
    network: bool = True,
    namespaces: bool = NAMESPACES,
    unix_sockets: bool = False,
) -> BashTool:
    return sandboxed_bash(
        kind,
        project,
        namespaces=namespaces,
        writable_slash_tmp=False,
        network=network,
        allow_unix_sockets=unix_sockets,
    )


needs_namespaces = pytest.mark.skipif(
    not NAMESPACES, reason="no mount namespace here (unshare refused): .git/.pitui stay writable"
)


@each_backend
@needs_namespaces
async def test_pitui_and_git_state_are_read_only_but_the_project_is_not(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    project, _ = places
    hook = project / ".git" / "hooks" / "pre-commit"
    attempts = [
        'echo \'{"shellPath": "/tmp/evil"}\' > .pitui/settings.json',
        "mkdir -p .pitui/x",
        f"printf '#!/bin/sh\\ntouch pwned\\n' > {hook} && chmod +x {hook}",
        "git config core.fsmonitor 'touch pwned'",
        "echo '* filter=x' > .git/info/attributes",
        "echo ../evil > .git/commondir",
        "git add -A",  # the index decides which gitlinks a later `git status` descends into
    ]
    output = await output_of(_tool(kind, project), "; ".join(attempts) + "; echo ok > src.txt")
    assert (project / ".pitui" / "settings.json").read_text() == "{}\n", output
    assert not (project / ".pitui" / "x").exists()
    assert not hook.exists()
    assert "fsmonitor" not in (project / ".git" / "config").read_text()
    assert not (project / ".git" / "info" / "attributes").exists()
    assert not (project / ".git" / "commondir").exists()
    assert not (project / ".git" / "index").exists()
    assert (project / "src.txt").read_text() == "ok\n"


@each_backend
@needs_namespaces
async def test_a_worktree_git_file_and_its_gitdir_are_read_only(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    project, _ = places
    gitdir = project / "gitdir"  # a worktree whose git dir lies inside a writable place
    (project / ".git").rename(gitdir)
    (project / ".git").write_text(f"gitdir: {gitdir}\n")
    command = f"echo 'gitdir: /elsewhere' > .git; touch {gitdir}/hooks/post-checkout; echo ok"
    output = await output_of(_tool(kind, project), command)
    assert (project / ".git").read_text() == f"gitdir: {gitdir}\n", output
    assert not (gitdir / "hooks" / "post-checkout").exists()


@each_backend
@needs_namespaces
async def test_metadata_outside_the_project_cannot_change(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    project, outside = places
    keep = outside / "keep.txt"
    before = keep.stat()
    probe = (
        f"import os\np = {str(keep)!r}\n"
        "for name, act in [('chmod', lambda: os.chmod(p, 0o4777)),"
        " ('utime', lambda: os.utime(p, (0, 0))), ('chown', lambda: os.chown(p, 1, 1)),"
        " ('xattr', lambda: os.setxattr(p, 'user.x', b'1'))]:\n"
        "    try:\n        act(); print(name, 'CHANGED')\n"
        "    except OSError as exc:\n        print(name, exc.strerror)\n"
    )
    (project / "probe.py").write_text(probe)
    output = await output_of(_tool(kind, project), f"{PY} probe.py")
    assert "CHANGED" not in output, output
    after = keep.stat()
    assert (after.st_mode, after.st_mtime_ns, after.st_uid) == (
        before.st_mode,
        before.st_mtime_ns,
        before.st_uid,
    )


_AGENT_VARS = {
    "TMUX": "/tmp/tmux-0/default,1,0",
    "TMUX_PANE": "%1",
    "STY": "1.pts-0.host",
    "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus",
    "KEEP_ME": "yes",
}


@each_backend
async def test_terminal_and_agent_sockets_leave_the_environment(
    kind: SandboxKind, places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, _ = places
    for name, value in _AGENT_VARS.items():
        monkeypatch.setenv(name, value)
    output = await output_of(_tool(kind, project), "env")
    names = {line.split("=", 1)[0] for line in output.splitlines()}
    assert "KEEP_ME" in names
    assert not names & (set(_AGENT_VARS) - {"KEEP_ME"}), output


@each_backend
@needs_namespaces
async def test_with_unix_sockets_allowed_those_outside_the_project_are_covered(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    project, outside = places
    with unix_server(str(outside / "tmux.sock")), unix_server(str(project / "own.sock")):
        tool = _tool(kind, project, unix_sockets=True)
        assert "CONNECTED" not in await output_of(tool, connect_probe(str(outside / "tmux.sock")))
        assert "CONNECTED" in await output_of(tool, connect_probe(str(project / "own.sock")))


@pytest.mark.skipif(LANDLOCK_ABI < 6, reason=f"Landlock ABI {LANDLOCK_ABI} has no scopes (needs 6)")
async def test_abstract_unix_sockets_outside_cannot_be_reached(places: tuple[Path, Path]) -> None:
    project, _ = places
    name = f"\0pitui-test-{os.getpid()}"
    with unix_server(name):
        tool = _tool("landlock", project, unix_sockets=True)  # the scope, not seccomp
        output = await output_of(tool, connect_probe(name))
    assert "CONNECTED" not in output and "Operation not permitted" in output, output


_TIOCSTI = 0x5412


_NO_LANDLOCK = pytest.mark.skipif(LANDLOCK_ABI < 1, reason="the kernel has no Landlock")
_NO_BWRAP = pytest.mark.skipif(not HAS_BWRAP, reason="bwrap is not installed or cannot sandbox")


@pytest.mark.parametrize(
    ("kind", "namespaces"),
    [
        pytest.param("landlock", True, marks=_NO_LANDLOCK, id="landlock"),
        pytest.param("bwrap", True, marks=_NO_BWRAP, id="bwrap"),
        pytest.param("landlock", False, marks=_NO_LANDLOCK, id="landlock-terminal-visible"),
    ],
)
async def test_keystrokes_cannot_be_pushed_into_the_users_terminal(
    kind: SandboxKind, namespaces: bool, places: tuple[Path, Path]
) -> None:
    """Without the namespace the terminal can be opened: the ioctl itself is refused."""
    project, _ = places
    master, slave = os.openpty()
    try:
        probe = (
            f"import fcntl, os\nfd = os.open({os.ttyname(slave)!r}, os.O_RDONLY | os.O_NOCTTY)\n"
            f"for ch in b'touch pwned\\n':\n    fcntl.ioctl(fd, {_TIOCSTI}, bytes([ch]))\n"
            "print('PUSHED')\n"
        )
        (project / "probe.py").write_text(probe)
        no_tty = f"{PY} -c \"open('/dev/tty')\""
        tool = _tool(kind, project, namespaces=namespaces and NAMESPACES)
        output = await output_of(tool, f"{PY} probe.py; {no_tty}")
        os.set_blocking(master, False)
        with contextlib.suppress(BlockingIOError):
            assert b"touch" not in os.read(master, 1024)
    finally:
        os.close(master)
        os.close(slave)
    assert "PUSHED" not in output, output
    assert "No such device or address: '/dev/tty'" in output  # and no controlling terminal


@each_backend
async def test_processes_outside_cannot_be_signalled(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    if kind == "landlock" and LANDLOCK_ABI < 6:
        pytest.skip(f"Landlock ABI {LANDLOCK_ABI} cannot scope signals (needs 6)")
    project, _ = places
    victim = await asyncio.create_subprocess_exec("sleep", "30")
    try:
        await output_of(_tool(kind, project), f"kill -9 {victim.pid}")
        await asyncio.sleep(0.1)
        assert victim.returncode is None
    finally:
        victim.kill()
        await victim.wait()


def _alive(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit() and marker in Path(f"/proc/{entry}/cmdline").read_text():
                found.append(entry)
    return found


@each_backend
async def test_no_process_outlives_its_call(kind: SandboxKind, places: tuple[Path, Path]) -> None:
    project, _ = places
    marker = f"pitui_escape_{os.getpid()}"
    command = f"setsid sh -c 'sleep 1; touch {marker}' & (nohup sh -c 'sleep 1; : {marker}' &)"
    await output_of(_tool(kind, project), command + "; echo started")
    await asyncio.sleep(1.5)
    assert not (project / marker).exists()
    assert not _alive(marker)


@each_backend
async def test_an_aborted_call_leaves_no_process(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    project, _ = places
    marker = f"pitui_abort_{os.getpid()}"
    signal = AbortSignal()
    tool = _tool(kind, project)
    call = asyncio.ensure_future(
        run(tool, signal, command=f"setsid sh -c 'sleep 1; touch {marker}' & sleep 30")
    )
    await asyncio.sleep(0.5)
    signal.abort()
    with pytest.raises(BashError):
        await call
    await asyncio.sleep(1.2)
    assert not (project / marker).exists()
    assert not _alive(marker)


@each_backend
async def test_no_network_means_no_udp_and_no_raw_sockets(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    if kind == "landlock" and LANDLOCK_ABI < 4:
        pytest.skip(f"Landlock ABI {LANDLOCK_ABI} cannot turn the network off (needs 4)")
    project, _ = places
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(0.3)
    port = receiver.getsockname()[1]
    probe = (
        "import socket\n"
        "try:\n    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"    udp.sendto(b'x', ('127.0.0.1', {port}))\n    print('UDP SENT')\n"
        "except OSError as exc:\n    print('udp', exc.strerror)\n"
        "try:\n    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)\n"
        "    print('RAW OPEN')\nexcept OSError as exc:\n    print('raw', exc.strerror)\n"
    )
    (project / "probe.py").write_text(probe)
    try:
        output = await output_of(_tool(kind, project, network=False), f"{PY} probe.py")
        with pytest.raises(TimeoutError):
            receiver.recv(1)
    finally:
        receiver.close()
    assert "RAW OPEN" not in output, output
    if kind == "landlock":  # bwrap's own network namespace swallows the datagram instead
        assert "UDP SENT" not in output, output


@each_backend
@needs_namespaces
async def test_the_commands_own_terminals_still_work(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    project, _ = places
    probe = "import os\nm, s = os.openpty()\nos.write(m, b'hi\\n')\nprint(os.read(s, 3))\n"
    (project / "probe.py").write_text(probe)
    assert text(await run(_tool(kind, project), command=f"{PY} probe.py")) == "b'hi\\n'\n"


def test_the_tree_ends_when_pitui_dies(tmp_path: Path) -> None:
    if LANDLOCK_ABI < 1:
        pytest.skip("the kernel has no Landlock")
    marker = tmp_path / "late"
    settings = SandboxSettings(writable_slash_tmp=False)
    sandbox = build_sandbox("landlock", tmp_path, settings, namespaces=NAMESPACES)
    # A stand-in for pitui: starts the command, then is SIGKILLed before it is done.
    script = (
        "import os, subprocess, sys, time\nargv = sys.argv[1:]\n"
        "argv[argv.index('--parent') + 1] = str(os.getpid())\n"
        "subprocess.Popen(argv, start_new_session=True)\ntime.sleep(5)\n"
    )
    command = f"setsid sh -c 'sleep 1; touch {marker}' & sleep 30"
    pitui = subprocess.Popen([PY, "-c", script, *sandbox.wrap(["/bin/sh", "-c", command]).argv])
    time.sleep(0.3)
    pitui.kill()
    pitui.wait()
    time.sleep(1.2)
    assert not marker.exists()
    assert not _alive(str(marker))


def _as_nobody() -> list[str] | None:
    """A command prefix running as an unprivileged user, or None if this cannot here."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or not os.path.exists("/usr/bin/python3"):
        return None
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_an_unprivileged_user_gets_the_namespace_through_a_user_namespace() -> None:
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("needs root (to become nobody), setpriv and /usr/bin/python3")
    if LANDLOCK_ABI < 1:
        pytest.skip("the kernel has no Landlock")
    folder = Path(tempfile.mkdtemp(prefix="pitui-nobody-", dir="/tmp"))
    try:
        folder.chmod(0o777)
        project = folder / "project"
        subprocess.run([*prefix, "mkdir", "-p", str(project / ".git")], check=True)
        launcher = Sandbox("landlock", (str(project),), namespaces=True).wrap(["true"]).argv
        options = launcher[4 : launcher.index("--parent")]
        script = "touch .git/x; touch ok"
        shell = f'cd {project} && exec "$@"'
        launch = ["/usr/bin/python3", "-S", "-I", str(LAUNCHER), *options, "--"]
        command = [*prefix, "sh", "-c", shell, "sh", *launch, "sh", "-c", script]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if "no private mount namespace" in result.stderr:
            pytest.skip(f"user namespaces refused here: {result.stderr.strip()}")
        assert (project / "ok").exists(), result.stderr
        assert not (project / ".git" / "x").exists(), result.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_KEYRING_PROBE = (
    "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    "found = libc.syscall({keyctl}, 0, -3, 0)\n"  # KEYCTL_GET_KEYRING_ID, the session keyring
    "print('KEYRING' if found > 0 else f'errno {{ctypes.get_errno()}}')\n"
)


@pytest.mark.skipif(LANDLOCK_ABI < 1, reason="the kernel has no Landlock")
async def test_the_users_keyring_is_out_of_reach(places: tuple[Path, Path]) -> None:
    keyctl = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
    if keyctl is None:
        pytest.skip(f"no seccomp filter for {os.uname().machine}")
    project, _ = places
    (project / "probe.py").write_text(_KEYRING_PROBE.format(keyctl=keyctl))
    outside = await output_of(BashTool(project), f"{PY} probe.py")
    if "KEYRING" not in outside:
        pytest.skip(f"no session keyring to protect here ({outside.strip()})")
    output = await output_of(_tool("landlock", project), f"{PY} probe.py")
    assert output.strip() == "errno 1", output


@needs_namespaces
def test_a_writable_mount_inside_the_project_stays_writable(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to make a mount of its own")
    (tmp_path / "cache").mkdir()
    settings = SandboxSettings(writable_slash_tmp=False)
    sandbox = build_sandbox("landlock", tmp_path, settings, namespaces=True)
    launcher = sandbox.wrap(["sh", "-c", "touch cache/x top && echo wrote"]).argv
    at = launcher.index("--parent")  # the shell below is its parent, not this process
    launcher = launcher[:at] + launcher[at + 2 :]
    script = 'mount -t tmpfs scratch cache && exec "$@"'
    command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]
    result = subprocess.run(
        [*command, *launcher], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.stdout == "wrote\n", result.stderr


@each_backend
@needs_namespaces
async def test_a_socket_served_from_another_network_namespace_is_covered_too(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    """Not in this /proc/net/unix (a container's docker.sock served by the host; on a
    shared machine, other people's tmux servers): found by walking /run and /tmp."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to serve from another network namespace")
    project, _ = places
    path = f"/run/pitui-test-{os.getpid()}.sock"
    serve = (
        "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\n"
        "s.listen(16)\nprint('up', flush=True)\nwhile True:\n    s.accept()[0].close()\n"
    )
    server = await asyncio.create_subprocess_exec(
        "unshare", "--net", PY, "-c", serve, path, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert server.stdout is not None and await server.stdout.readline() == b"up\n"
        assert "CONNECTED" in await output_of(BashTool(project), connect_probe(path))
        output = await output_of(_tool(kind, project, unix_sockets=True), connect_probe(path))
        assert "CONNECTED" not in output and "Connection refused" in output, output
    finally:
        server.kill()
        await server.wait()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


@each_backend
@needs_namespaces
async def test_a_submodules_git_file_cannot_become_a_repository_of_its_own(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    """Replaced by a directory with ``core.fsmonitor``, the superproject's ``git status``
    would run it."""
    project, outside = places
    library = outside / "library"
    library.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "x"]):
        _git("-c", "user.name=t", "-c", "user.email=t@t", *args, cwd=library)
    _git("submodule", "add", "-q", str(library), "lib", cwd=project)
    before = (project / "lib" / ".git").read_text()
    command = "rm -f lib/.git; mkdir lib/.git && echo '[core]' > lib/.git/config; echo done"
    output = await output_of(_tool(kind, project), command)
    assert (project / "lib" / ".git").read_text() == before, output


@each_backend
@needs_namespaces
async def test_hooks_kept_in_the_worktree_are_read_only(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    """husky: ``core.hooksPath = .husky``; a hook there runs on the user's next commit."""
    project, _ = places
    (project / ".husky").mkdir()
    _git("config", "core.hooksPath", ".husky", cwd=project)
    output = await output_of(_tool(kind, project), "echo 'touch pwned' > .husky/pre-commit")
    assert not (project / ".husky" / "pre-commit").exists(), output


@each_backend
@needs_namespaces
async def test_sockets_in_the_users_writable_paths_stay_reachable(
    kind: SandboxKind, places: tuple[Path, Path]
) -> None:
    """``writablePaths: ["/run/postgresql"]`` with ``allowUnixSockets``: the user's choice
    gives the database back."""
    project, outside = places
    (outside / "db").mkdir()
    settings = SandboxSettings(
        writable_slash_tmp=False, writable_paths=[str(outside / "db")], allow_unix_sockets=True
    )
    sandbox = build_sandbox(kind, project, settings, namespaces=NAMESPACES)
    with unix_server(str(outside / "db" / "s.sock")), unix_server(str(outside / "x.sock")):
        tool = BashTool(project, sandbox=sandbox)
        assert "CONNECTED" in await output_of(tool, connect_probe(str(outside / "db" / "s.sock")))
        assert "CONNECTED" not in await output_of(tool, connect_probe(str(outside / "x.sock")))


@needs_namespaces
async def test_a_git_that_is_a_symbolic_link_cannot_be_replaced(
    places: tuple[Path, Path],
) -> None:
    project, _ = places
    (project / ".git").rename(project / "store.git")
    (project / ".git").symlink_to("store.git")
    command = "rm -f .git; mkdir .git; echo '[core]' > .git/config; touch store.git/hooks/x"
    output = await output_of(_tool("landlock", project), command)
    assert (project / ".git").is_symlink(), output
    assert os.readlink(project / ".git") == "store.git"
    assert not (project / "store.git" / "hooks" / "x").exists()
