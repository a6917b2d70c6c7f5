"""The two ways to reach a server: a child process over stdio, or streamable HTTP.

Both yield the SDK's pair of message streams for its ``ClientSession``. The stdio one
is pitui's own (rather than the SDK's ``stdio_client``) for three reasons: the process
group must be known to kill it at exit whatever happens (:mod:`processes`), stderr is
read line by line into the server's tail and ``mcp.log`` instead of a file, and a
server that exits is noticed at once (``closed`` is set) so it shows as disconnected.
Imports of the SDK happen inside the functions: this module is loaded only when a
server connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitui.core.mcp import processes

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

LINE_LIMIT = 64 * 1024 * 1024
"""Longest message line a server may send (results can be large; asyncio's default is
64 KiB)."""
INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")
"""What a server inherits from pitui's environment (as the SDK: not API keys)."""


@dataclass
class StdioSpec:
    """A resolved stdio server: what to run, where, with which extra variables."""

    command: str
    args: list[str]
    env: dict[str, str]
    cwd: Path


@dataclass
class HttpSpec:
    url: str
    headers: dict[str, str]


@dataclass
class Link:
    """What a transport tells its connection besides messages."""

    on_stderr: Callable[[str], None]
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    pid: int | None = None
    http_status: int | None = None
    """The last HTTP status seen (the SDK turns error statuses into one generic error)."""


def server_environment(extra: dict[str, str]) -> dict[str, str]:
    base = {key: os.environ[key] for key in INHERITED_ENV if key in os.environ}
    return base | extra


@asynccontextmanager
async def stdio_transport(spec: StdioSpec, link: Link) -> AsyncIterator[TransportStreams]:
    """Start the server and bridge its pipes; stop its whole group on exit."""
    import anyio
    import mcp_types
    from mcp.shared.message import SessionMessage

    process = await asyncio.create_subprocess_exec(
        spec.command,
        *spec.args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=server_environment(spec.env),
        cwd=spec.cwd,
        start_new_session=True,
        limit=LINE_LIMIT,
    )
    processes.track(process.pid)
    link.pid = process.pid
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_stdout() -> None:
        assert process.stdout is not None
        async with read_send:
            with contextlib.suppress(Exception):
                while line := await process.stdout.readline():
                    if not line.strip():
                        continue
                    try:
                        message: Any = mcp_types.jsonrpc_message_adapter.validate_json(line)
                    except ValueError as exc:
                        await read_send.send(exc)
                        continue
                    await read_send.send(SessionMessage(message))
        link.closed.set()

    async def write_stdin() -> None:
        assert process.stdin is not None
        async with write_recv:
            with contextlib.suppress(Exception):
                async for item in write_recv:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    process.stdin.write(data.encode() + b"\n")
                    await process.stdin.drain()

    async def read_stderr() -> None:
        assert process.stderr is not None
        with contextlib.suppress(Exception):
            while line := await process.stderr.readline():
                link.on_stderr(line.decode("utf-8", "replace").rstrip("\r\n"))

    tasks = [asyncio.create_task(job()) for job in (read_stdout, write_stdin, read_stderr)]
    try:
        yield read_recv, write_send
    finally:
        await processes.stop_process(process)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        link.closed.set()


@asynccontextmanager
async def http_transport(spec: HttpSpec, link: Link) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP with the configured headers (bearer tokens work; OAuth does not)."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def note_status(response: Any) -> None:
        link.http_status = response.status_code

    client = create_mcp_http_client(headers=spec.headers)
    client.event_hooks["response"] = [*client.event_hooks.get("response", []), note_status]
    async with client, streamable_http_client(spec.url, http_client=client) as streams:
        try:
            yield streams
        finally:
            link.closed.set()
