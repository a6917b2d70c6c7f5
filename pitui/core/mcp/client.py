"""One server's connection: connect, list tools, call, notice a drop, close.

A connection is owned by one asyncio task (the SDK's session lives in an anyio task
group, which must be entered and left by the same task): it opens the transport, runs
``initialize``, lists tools and resources, then waits until it is told to stop or the
transport closes. Calls come from other tasks through the session. What reaches the
rest of pitui is plain data (:class:`ToolInfo`, JSON dicts of results), so only this
module and :mod:`transport` know the SDK.

A call's timeout (the server's ``timeout``, 60 s by default) restarts with every
progress notification. A timeout, a dropped server or a protocol error raises
:class:`McpCallError` whose message ends with the server's last stderr lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pitui import __version__
from pitui.core.mcp.config import ServerEntry
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.transport import HttpSpec, Link, StdioSpec, http_transport, stdio_transport
from pitui.core.mcp.values import UnresolvedValue, expand_home, resolve_map

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

State = Literal["idle", "connecting", "connected", "failed", "disconnected", "closed"]
STDERR_TAIL_LINES = 40
CONNECT_TIMEOUT_MIN_S = 30.0
HTTP_RETRIES = 2
STDERR_IN_ERRORS = 10
"""stderr lines quoted in a failed call's message."""

Progress = Callable[[float, float | None, str | None], None]


SDK_MODULES = ("mcp_types", "mcp.shared.message", "mcp.client.session")
"""Importing these costs ~0.5 s of CPU: done in a thread, once, so the UI keeps drawing."""
HTTP_MODULES = ("mcp.client.streamable_http", "mcp.shared._httpx_utils")


async def load_sdk(modules: tuple[str, ...] = SDK_MODULES) -> None:
    """Import SDK modules off the event loop (a no-op once imported; Python's import
    lock makes concurrent imports of one module safe)."""
    for name in modules:
        if name not in sys.modules:
            await asyncio.to_thread(importlib.import_module, name)


class McpCallError(Exception):
    """A call that could not complete (timeout, dropped server, protocol error)."""


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """A tool as the server lists it (plain JSON; no SDK types)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, bool] = field(default_factory=dict)
    title: str | None = None

    @property
    def read_only(self) -> bool:
        return self.annotations.get("readOnlyHint") is True


def _tool_info(raw: dict[str, Any]) -> ToolInfo:
    hints = raw.get("annotations") or {}
    annotations = {k: v for k, v in hints.items() if k.endswith("Hint") and isinstance(v, bool)}
    title = raw.get("title") or hints.get("title")
    schema = dict(raw.get("inputSchema") or {})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    description = (raw.get("description") or "").strip() or title or ""
    return ToolInfo(str(raw["name"]), description, schema, annotations, title)


class ServerConnection:
    """The live state of one configured server."""

    def __init__(
        self,
        entry: ServerEntry,
        cwd: Path,
        log: McpLog,
        on_change: Callable[[ServerConnection], None] = lambda _c: None,
    ) -> None:
        self.entry = entry
        self.cwd = cwd
        self.log = log
        self.on_change = on_change
        self.state: State = "idle"
        self.error: str | None = None
        self.tools: list[ToolInfo] = []
        self.instructions: str | None = None
        self.has_resources = False
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._link: Link | None = None

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def connect_timeout_s(self) -> float:
        """Starting may take longer than a request (``npx`` downloads the server)."""
        return max(self.entry.timeout_s, CONNECT_TIMEOUT_MIN_S)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Connect in the background (a no-op when connected or connecting)."""
        if self.state in ("connecting", "connected") or self.state == "closed":
            return
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._set_state("connecting")
        self._owner = asyncio.create_task(self._own(), name=f"mcp:{self.name}")

    async def wait_ready(self, within: float | None = None) -> bool:
        """Wait until connecting ended (connected or not); False on timeout."""
        if self.state not in ("connecting",):
            return True
        try:
            await asyncio.wait_for(self._ready.wait(), within)
        except TimeoutError:
            return False
        return True

    async def ensure_connected(self) -> None:
        """Reconnect a dropped (or failed) server and wait for it.

        Raises:
            McpCallError: it does not connect.
        """
        if self.state in ("disconnected", "failed", "idle"):
            await self._join_owner()
            self.start()
        await self.wait_ready(self.connect_timeout_s)
        if self.state != "connected" or self._session is None:
            raise McpCallError(
                self._with_stderr(
                    f'MCP server "{self.name}" is not connected: {self.error or self.state}'
                )
            )

    async def close(self) -> None:
        """Stop the server (stdin, SIGTERM, SIGKILL for stdio) and wait for it."""
        await self._stop_owner()
        self._set_state("closed")

    async def reconnect(self) -> None:
        await self._stop_owner()
        self.state = "idle"
        self.start()
        await self.wait_ready()

    async def _stop_owner(self) -> None:
        """End the owner task: told to stop when connected, cancelled while connecting (a
        slow or hanging server must not hold up quitting); either way the transport stops
        the process on its way out."""
        self._stop.set()
        if self._owner is not None and self.state == "connecting":
            self._owner.cancel()
        await self._join_owner()

    async def _join_owner(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await owner

    def _set_state(self, state: State, error: str | None = None) -> None:
        self.state = state
        if state in ("failed", "disconnected") or state == "connected":
            self.error = error
        self.on_change(self)

    async def _own(self) -> None:
        try:
            for attempt in range(HTTP_RETRIES + 1):
                try:
                    await self._live()
                    return
                except Exception as exc:  # every failure becomes state, never a traceback
                    self._session = None
                    if self._retry(exc, attempt):
                        await asyncio.sleep(0.5 * (attempt + 1))
                        continue
                    message = _describe(exc, self.connect_timeout_s, self._http_status())
                    dropped = self.state in ("connected", "disconnected")
                    state: State = "disconnected" if dropped else "failed"
                    self._set_state(state, self._with_stderr(message))
                    return
        finally:
            self._session = None
            self._ready.set()

    def _http_status(self) -> int | None:
        return self._link.http_status if self._link is not None else None

    def _retry(self, exc: BaseException, attempt: int) -> bool:
        """HTTP network errors and transient statuses while connecting are retried twice."""
        status = self._http_status()
        return (
            attempt < HTTP_RETRIES
            and self.entry.kind == "http"
            and self.state == "connecting"
            and not self._stop.is_set()
            and (is_transient(exc) or (status is not None and transient_status(status)))
        )

    async def _live(self) -> None:
        """One connection, from opening to its end (stopped, or the server went away)."""
        async with AsyncExitStack() as stack:
            async with asyncio.timeout(self.connect_timeout_s):
                await self._open(stack)
            self._set_state("connected")
            self._ready.set()
            await self._wait_for_end()
            if not self._stop.is_set():
                self._session = None
                self._set_state("disconnected", self._with_stderr("the server closed"))

    async def _wait_for_end(self) -> None:
        assert self._link is not None
        stop = asyncio.create_task(self._stop.wait())
        closed = asyncio.create_task(self._link.closed.wait())
        try:
            await asyncio.wait({stop, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            closed.cancel()

    async def _open(self, stack: AsyncExitStack) -> None:
        await load_sdk()
        from mcp.client.session import ClientSession
        from mcp_types import Implementation

        self._link = Link(on_stderr=self._stderr_line)
        transport = await self._transport(self._link)
        read, write = await stack.enter_async_context(transport)
        session = ClientSession(
            read,
            write,
            logging_callback=self._on_log,
            message_handler=self._on_message,
            client_info=Implementation(name="pitui", version=__version__),
        )
        await stack.enter_async_context(session)
        result = await session.initialize()
        self.instructions = getattr(result, "instructions", None)
        self._session = session
        self.tools = await self._list_tools(session)
        self.has_resources = await self._offers_resources(session)

    async def _transport(self, link: Link) -> Any:
        config = self.entry.config
        try:
            if self.entry.kind == "http":
                await load_sdk(HTTP_MODULES)
                headers = await resolve_map(config.get("headers"), "headers")
                return http_transport(HttpSpec(config["url"], headers), link)
            env = await resolve_map(config.get("env"), "env")
        except UnresolvedValue as exc:
            raise McpCallError(f'MCP server "{self.name}": {exc}') from None
        cwd = (self.cwd / expand_home(config.get("cwd", "."))).resolve()
        args = [expand_home(arg) for arg in config.get("args", [])]
        return stdio_transport(StdioSpec(expand_home(config["command"]), args, env, cwd), link)

    async def _offers_resources(self, session: ClientSession) -> bool:
        """Whether the server lists any resource or template (the capability alone is
        advertised by servers that have none)."""
        capabilities = session.server_capabilities
        if capabilities is None or capabilities.resources is None:
            return False
        with contextlib.suppress(Exception):
            if (await session.list_resources()).resources:
                return True
        with contextlib.suppress(Exception):
            return bool((await session.list_resource_templates()).resource_templates)
        return False

    async def _list_tools(self, session: ClientSession) -> list[ToolInfo]:
        capabilities = session.server_capabilities
        if capabilities is not None and capabilities.tools is None:
            return []
        tools: list[ToolInfo] = []
        cursor: str | None = None
        while True:
            from mcp_types import PaginatedRequestParams

            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            tools += [
                _tool_info(t.model_dump(by_alias=True, exclude_none=True)) for t in page.tools
            ]
            cursor = page.next_cursor
            if not cursor:
                return tools

    # ------------------------------------------------------------------ notifications

    def _stderr_line(self, line: str) -> None:
        self.stderr_tail.append(line)
        self.log.write(self.name, "stderr", None, line)

    async def _on_log(self, params: Any) -> None:
        self.log.write(self.name, str(params.level), params.logger, params.data)

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed" and self._session is not None:
            with contextlib.suppress(Exception):
                self.tools = await self._list_tools(self._session)
                self.on_change(self)
        elif isinstance(message, Exception):
            self.log.write(self.name, "error", "pitui", str(message))

    # ------------------------------------------------------------------ requests

    def _with_stderr(self, message: str) -> str:
        lines = list(self.stderr_tail)[-STDERR_IN_ERRORS:]
        if not lines:
            return message
        return message + "\n\nServer stderr (last lines):\n" + "\n".join(lines)

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], on_progress: Progress | None = None
    ) -> dict[str, Any]:
        """Call ``tool``; the ``CallToolResult`` as JSON (``isError`` results included)."""
        await self.ensure_connected()
        session = self._session
        assert session is not None
        activity = [time.monotonic()]

        async def report(progress: float, total: float | None, message: str | None) -> None:
            activity[0] = time.monotonic()
            if on_progress is not None:
                on_progress(progress, total, message)

        request = session.call_tool(tool, arguments, progress_callback=report)
        result = await self._bounded(request, activity, f"tool {tool}")
        return dict(result.model_dump(by_alias=True, exclude_none=True, mode="json"))

    async def request(self, label: str, make: Callable[[ClientSession], Awaitable[Any]]) -> Any:
        """Any other request (resources), with the same timeout and error handling."""
        await self.ensure_connected()
        assert self._session is not None
        return await self._bounded(make(self._session), [time.monotonic()], label)

    async def _bounded(self, request: Awaitable[Any], activity: list[float], label: str) -> Any:
        """Await ``request`` until it answers, the server drops, or it is idle too long."""
        assert self._link is not None
        task = asyncio.ensure_future(request)
        closed = asyncio.create_task(self._link.closed.wait())
        timeout = self.entry.timeout_s
        try:
            while not task.done():
                remaining = activity[0] + timeout - time.monotonic()
                if remaining <= 0:
                    raise McpCallError(
                        self._with_stderr(
                            f'MCP server "{self.name}" did not answer {label} within {timeout:g} s'
                        )
                    )
                await asyncio.wait(
                    {task, closed}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if closed.done() and not task.done():
                    raise McpCallError(
                        self._with_stderr(
                            f'MCP server "{self.name}" closed the connection during {label}'
                        )
                    )
            return task.result()
        except McpCallError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise McpCallError(
                self._with_stderr(f'MCP server "{self.name}": {_describe(exc, timeout)}')
            ) from None
        finally:
            closed.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc``, the members of exception groups and the causes, depth first."""
    found: list[BaseException] = []
    stack = [exc]
    while stack and len(found) < 50:
        current = stack.pop()
        found.append(current)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        if current.__cause__ is not None:
            stack.append(current.__cause__)
    return found


def transient_status(status: int) -> bool:
    return status in (408, 429) or status >= 500


def is_transient(exc: BaseException) -> bool:
    """A network error or a 408/429/5xx answer somewhere in ``exc``."""
    import httpx2

    for cause in _causes(exc):
        if isinstance(cause, httpx2.TransportError):
            return True
        if isinstance(cause, httpx2.HTTPStatusError):
            return transient_status(cause.response.status_code)
    return False


def _describe(exc: BaseException, timeout: float, status: int | None = None) -> str:
    """A one-paragraph reason for ``exc`` (exception groups unwrapped); ``status`` is the
    last HTTP status of an HTTP server."""
    if status == 401:
        return (
            "the server needs sign-in (401); pitui has no OAuth yet: "
            'set an "Authorization" header (e.g. "Bearer ${TOKEN}") in "headers"'
        )
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip()
    error = getattr(exc, "error", None)
    if not text and error is not None:
        text = str(getattr(error, "message", error))
    text = text or type(exc).__name__
    return f"{text} (HTTP {status})" if status is not None and status >= 400 else text
