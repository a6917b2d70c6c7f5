"""Which sandboxes this machine has, for tests that need one (skipped with the reason if none)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.core.sandbox import SandboxKind, build_sandbox, bwrap_works, landlock_abi
from pitui.core.settings import SandboxSettings
from pitui.core.tools.bash import BashError, BashTool

LANDLOCK_ABI = landlock_abi()
HAS_BWRAP = asyncio.run(bwrap_works())
NONE_REASON = (
    "no sandbox on this machine: the kernel has no Landlock and bwrap is absent or cannot "
    "create user namespaces (apt-get install bubblewrap)"
)


SANDBOX_PYTHON = os.path.realpath(sys.executable)
"""The interpreter for commands run in the sandbox: the venv's own python resolved to the
real one, since the sandbox shows a private /tmp (a checkout and its venv under /tmp, as
in a CI clone, are not in the command's view; the base interpreter is)."""


def backends() -> list[object]:
    """``landlock`` and ``bwrap`` as pytest params, each skipped with a reason when missing."""
    found: list[tuple[SandboxKind, bool, str]] = [
        ("landlock", LANDLOCK_ABI >= 1, "the kernel has no Landlock"),
        ("bwrap", HAS_BWRAP, "bwrap is not installed or cannot sandbox here"),
    ]
    return [
        pytest.param(kind, marks=[] if ok else [pytest.mark.skip(reason=why)], id=kind)
        for kind, ok, why in found
    ]


needs_a_sandbox = pytest.mark.skipif(LANDLOCK_ABI < 1 and not HAS_BWRAP, reason=NONE_REASON)


def _namespaces() -> bool:
    """True if the Landlock launcher can make its private mount namespace here."""
    from pitui.core.sandbox import namespace_problem, writable_places
    from pitui.core.settings import SandboxSettings

    if LANDLOCK_ABI < 1:
        return False
    places = writable_places(Path(tempfile.gettempdir()), SandboxSettings())
    problem = asyncio.run(namespace_problem(places))
    if problem is not None:
        print(f"sandbox tests: no mount namespace for Landlock ({problem})")
    return problem is None


NAMESPACES = _namespaces()
"""Landlock's launcher has a private mount namespace here (bubblewrap always has one)."""


@pytest.fixture
def visible_outside() -> Iterator[Path]:
    """A folder outside the project that sandboxed commands can see: not in a temp dir
    (the sandbox's temp dirs are its own, so ``tmp_path`` is out of its sight)."""
    base = Path.home() / ".cache" / "pitui-sandbox-tests"
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=base))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def unix_server(address: str | bytes) -> Iterator[socket.socket]:
    """A unix socket server that accepts every connection (a full queue would refuse)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen(16)

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                server.accept()[0].close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown(socket.SHUT_RDWR)
        server.close()


def connect_probe(address: str) -> str:
    return (
        f'{SANDBOX_PYTHON} -c "import socket; s = socket.socket(socket.AF_UNIX); '
        f"s.connect({address!r}); print('CONNECTED')\""
    )


def sandboxed_bash(
    kind: SandboxKind, project: Path, *, namespaces: bool | None = None, **settings: object
) -> BashTool:
    """The bash tool in ``project`` under the ``kind`` sandbox with these settings
    (camelCase or snake_case names), in a mount namespace where the machine allows one."""
    sandbox = build_sandbox(
        kind,
        project,
        SandboxSettings.model_validate(settings),
        namespaces=NAMESPACES if namespaces is None else namespaces,
    )
    return BashTool(project, sandbox=sandbox)


async def output_of(tool: BashTool, command: str) -> str:
    """What ``command`` printed, whether it failed or not."""
    from tests.core.tools.helpers import run, text

    try:
        return text(await run(tool, command=command))
    except BashError as exc:
        return str(exc)
