"""bash under the workspace sandbox: writes stay inside the project and temp, real kernels."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.core.sandbox import LAUNCHER, Sandbox, SandboxKind, build_sandbox, find_sandbox
from pitui.core.settings import SandboxSettings
from pitui.core.tools.bash import BashError, BashTool
from tests.core.sandbox_support import LANDLOCK_ABI, SANDBOX_PYTHON, backends
from tests.core.sandbox_support import visible_outside as visible_outside

from .helpers import run, text

each_backend = pytest.mark.parametrize("kind", backends())


@pytest.fixture
def places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, visible_outside: Path
) -> tuple[Path, Path, Path]:
    """(project, temp dir, outside dir); outside is where the sandbox can see it."""
    project, temp, outside = tmp_path / "project", tmp_path / "tmp", visible_outside
    for folder in (project, temp):
        folder.mkdir()
    (outside / "keep.txt").write_text("precious\n")
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    return project, temp, outside


def _tool(kind: SandboxKind, project: Path, *, network: bool = True) -> BashTool:
    settings = SandboxSettings(writable_slash_tmp=False, network=network)
    return BashTool(project, sandbox=build_sandbox(kind, project, settings))


@each_backend
async def test_outside_survives_rm_rf_and_the_result_says_why(
    kind: SandboxKind, places: tuple[Path, Path, Path]
) -> None:
    project, _, outside = places
    with pytest.raises(BashError) as info:
        await run(_tool(kind, project), command=f"rm -rf {outside}")
    assert (outside / "keep.txt").read_text() == "precious\n"
    message = str(info.value)
    assert "[pitui sandbox] The sandbox denied this" in message
    assert "--approve all" in message and str(project) in message


@each_backend
async def test_writes_inside_the_project_and_temp_still_work(
    kind: SandboxKind, places: tuple[Path, Path, Path]
) -> None:
    project, temp, _ = places
    command = (
        'echo a > in.txt && mkdir -p sub && mv in.txt sub/ && echo b > "$TMPDIR/t.txt" '
        '&& echo c > /dev/null && rm -rf sub/in.txt && ls && cat "$TMPDIR/t.txt"'
    )
    tool = _tool(kind, project)
    result = await run(tool, command=command)
    assert text(result) == "sub\nb\n"
    # With a mount namespace $TMPDIR is the session's scratch folder, else the real one.
    assert tool.sandbox is not None
    scratch = Path(tool.sandbox.scratch) if tool.sandbox.scratch else temp
    assert (scratch / "t.txt").read_text() == "b\n"
    assert "[pitui sandbox]" not in text(result)


@pytest.fixture
def server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that answers every connection with ``hello``."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.sendall(b"hello")
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield port
    listener.close()


@each_backend
async def test_the_network_switch(
    kind: SandboxKind, places: tuple[Path, Path, Path], server: int
) -> None:
    if kind == "landlock" and LANDLOCK_ABI < 4:
        pytest.skip(f"Landlock ABI {LANDLOCK_ABI} cannot turn the network off (needs 4)")
    project, _, _ = places
    probe = (
        f"{SANDBOX_PYTHON} -c \"import socket; s = socket.create_connection(('127.0.0.1', "
        f'{server}), timeout=5); print(s.recv(5).decode())"'
    )
    assert text(await run(_tool(kind, project), command=probe)) == "hello\n"
    with pytest.raises(BashError) as info:
        await run(_tool(kind, project, network=False), command=probe)
    assert "hello" not in str(info.value)


@pytest.mark.skipif(LANDLOCK_ABI < 1, reason="the kernel has no Landlock")
def test_the_launcher_refuses_to_run_unconfined(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    argv = [sys.executable, "-S", "-I", str(LAUNCHER), "--bogus", "--", "touch", str(marker)]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 126
    assert result.stderr.startswith("pitui sandbox: unknown option")
    assert not marker.exists()


@each_backend
def test_find_sandbox_honours_the_backend(kind: SandboxKind, tmp_path: Path) -> None:
    found = asyncio.run(find_sandbox(tmp_path, SandboxSettings(backend=kind)))
    assert isinstance(found, Sandbox) and found.kind == kind
    assert found.writable[0] == os.path.realpath(tmp_path)
