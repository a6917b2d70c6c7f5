"""Connections to real MCP servers: the suite's own (stdio and streamable HTTP) and
``mcp-server-time`` from PyPI."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError
from pitui.ai.abort import AbortSignal
from pitui.ai.types import ImageContent, TextContent
from pitui.core.mcp.client import ServerConnection
from pitui.core.mcp.config import LoadedConfig, ServerEntry
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.processes import live_groups
from pitui.core.mcp.runtime import McpRuntime
from tests.core.mcp.helpers import DEMO, demo_entry, time_entry


def runtime_for(tmp_path: Path, **servers: dict[str, Any]) -> McpRuntime:
    entries = [
        ServerEntry(name, config, "user", tmp_path / "mcp.json") for name, config in servers.items()
    ]
    return McpRuntime(tmp_path, LoadedConfig(servers=entries), log=McpLog(tmp_path / "mcp.log"))


async def run(tool: AgentTool | None, **args: Any) -> AgentToolResult:
    assert tool is not None
    params = tool.parameters.model_validate(args)
    return await tool.execute("call", params, AbortSignal(), lambda _r: None)


def text(result: AgentToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


async def test_demo_server_over_stdio(tmp_path: Path) -> None:
    runtime = runtime_for(tmp_path, demo=demo_entry())
    runtime.start()
    try:
        await runtime.wait_all()
        connection = runtime.connections["demo"]
        assert connection.state == "connected", connection.error
        assert connection.instructions and connection.instructions.startswith("A demo server")
        await runtime.before_prompt([])
        names = {t.name for t in runtime.declared()}
        assert {"mcp__demo__echo", "mcp__demo__write_note", "read_mcp_resource"} <= names
        echo = runtime.tool("mcp__demo__echo")
        assert echo is not None and echo.read_only and echo.label == "demo/echo"
        assert echo.to_tool().parameters["properties"]["text"]["type"] == "string"
        result = await run(echo, text="hi")
        assert text(result) == "echo: hi" and result.details == {"server": "demo", "tool": "echo"}
        assert not runtime.tool("mcp__demo__write_note").read_only  # type: ignore[union-attr]

        with pytest.raises(ToolError, match=r'Validation failed for tool "mcp__demo__add":\n'):
            await run(runtime.tool("mcp__demo__add"), a="x", b=1)
        with pytest.raises(ToolError, match="Error executing tool fail"):
            await run(runtime.tool("mcp__demo__fail"))
        image = await run(runtime.tool("mcp__demo__image"))
        assert (
            isinstance(image.content[0], ImageContent) and image.content[0].mime_type == "image/png"
        )

        big = await run(runtime.tool("mcp__demo__big"), size=50_000)
        body = text(big)
        assert body.startswith("Warning: truncated output (original token count: 12500)")
        assert "HEAD" in body and "TAIL" in body and "…29520 chars truncated…" in body
        full = Path(big.details["fullOutputPath"])
        assert (
            await asyncio.to_thread(full.read_text) == "HEAD" + "x" * 49_992 + "TAIL"
            and str(full) in body
        )
        assert len(body.encode()) < 21 * 1024

        await run(runtime.tool("mcp__demo__log_something"))
        await run(runtime.tool("mcp__demo__grow"))
        for _ in range(100):  # the list-changed notification arrives after the result
            if runtime.tool("mcp__demo__extra") is not None:
                break
            await asyncio.sleep(0.02)
        assert text(await run(runtime.tool("mcp__demo__extra"))) == "extra!"
    finally:
        await runtime.close()
    log = (tmp_path / "mcp.log").read_text()
    assert "[demo] warning demo: something to log" in log
    assert "[demo] stderr demo server starting" in log
    assert not live_groups()


async def test_resources(tmp_path: Path) -> None:
    runtime = runtime_for(tmp_path, demo=demo_entry())
    runtime.start()
    try:
        await runtime.before_prompt([])
        tools = {t.name: t for t in runtime.declared()}
        listed = text(await run(tools["list_mcp_resources"]))
        assert '"uri": "note://readme"' in listed and '"server": "demo"' in listed
        templates = text(await run(tools["list_mcp_resource_templates"], server="demo"))
        assert '"uriTemplate": "note://{name}"' in templates
        read = tools["read_mcp_resource"]
        assert text(await run(read, server="demo", uri="note://readme")) == "Read me, please."
        assert text(await run(read, server="demo", uri="note://abc")) == "note abc"
        blob = text(await run(read, server="demo", uri="data://blob.bin"))
        assert blob.startswith("[Binary resource data://blob.bin (application/octet-stream, 16B)")
        saved = Path(blob.rsplit("saved to ", 1)[1].rstrip("]"))
        assert (
            await asyncio.to_thread(saved.read_bytes) == bytes(range(16)) and saved.suffix == ".bin"
        )
        with pytest.raises(ToolError, match='No MCP server "nope"'):
            await run(read, server="nope", uri="x")
    finally:
        await runtime.close()


async def test_progress_timeout_crash_and_reconnect(tmp_path: Path) -> None:
    runtime = runtime_for(tmp_path, demo=demo_entry(timeout=1.0))
    runtime.start()
    try:
        await runtime.before_prompt([])
        # 2 s of work with progress every 0.2 s: the 1 s timeout restarts each time.
        assert text(await run(runtime.tool("mcp__demo__slow"), seconds=2)) == "slow done"
        with pytest.raises(ToolError, match=r'"demo" did not answer tool hang within 1 s'):
            await run(runtime.tool("mcp__demo__hang"))
        with pytest.raises(ToolError) as crashed:
            await run(runtime.tool("mcp__demo__crash"))
        assert "about to crash: goodbye" in str(crashed.value)  # the stderr tail
        connection = runtime.connections["demo"]
        for _ in range(100):
            if connection.state == "disconnected":
                break
            await asyncio.sleep(0.02)
        assert connection.state == "disconnected"
        # The next call reconnects.
        assert text(await run(runtime.tool("mcp__demo__echo"), text="again")) == "echo: again"
        assert connection.state in ("connected",)
    finally:
        await runtime.close()
    assert not live_groups()


async def test_failures_are_states(tmp_path: Path) -> None:
    runtime = runtime_for(
        tmp_path,
        missing={"command": str(tmp_path / "no-such-server")},
        quits={
            "command": sys.executable,
            "args": ["-c", "import sys; print('bad config', file=sys.stderr)"],
        },
        env={"command": sys.executable, "env": {"K": "${PITUI_TEST_UNSET_VAR}"}},
    )
    runtime.start()
    await runtime.wait_all()
    states = {name: (c.state, c.error or "") for name, c in runtime.connections.items()}
    await runtime.close()
    assert states["missing"][0] == "failed" and "command not found" in states["missing"][1]
    assert states["quits"][0] == "failed" and "bad config" in states["quits"][1]
    assert "PITUI_TEST_UNSET_VAR" in states["env"][1]


async def test_time_server_from_pypi(tmp_path: Path) -> None:
    runtime = runtime_for(tmp_path, time=time_entry())
    runtime.start()
    try:
        await runtime.before_prompt([])
        result = await run(runtime.tool("mcp__time__get_current_time"), timezone="UTC")
        assert '"timezone": "UTC"' in text(result) and '"datetime"' in text(result)
    finally:
        await runtime.close()


@pytest.fixture
def http_server() -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, str(DEMO), "http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_streamable_http(
    tmp_path: Path, http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITUI_TEST_TOKEN", "sekrit")
    entry = {"url": http_server, "headers": {"Authorization": "Bearer ${PITUI_TEST_TOKEN}"}}
    runtime = runtime_for(tmp_path, web=entry)
    runtime.start()
    try:
        await runtime.before_prompt([])
        connection = runtime.connections["web"]
        assert connection.state == "connected", connection.error
        assert text(await run(runtime.tool("mcp__web__add"), a=2, b=3)) == "5"
        image = await run(runtime.tool("mcp__web__image"))
        assert isinstance(image.content[0], ImageContent)
    finally:
        await runtime.close()


async def test_unreachable_http_server_fails(tmp_path: Path) -> None:
    connection = ServerConnection(
        ServerEntry("gone", {"url": "http://127.0.0.1:9/mcp", "timeout": 5}, "user", tmp_path),
        tmp_path,
        McpLog(tmp_path / "mcp.log"),
    )
    connection.start()
    await connection.wait_ready()
    await connection.close()
    assert connection.state == "closed" and connection.error


def test_transient_http_errors() -> None:
    import httpx2

    from pitui.core.mcp.client import is_transient

    request = httpx2.Request("POST", "http://127.0.0.1/mcp")

    def status(code: int) -> Exception:
        response = httpx2.Response(code, request=request)
        return httpx2.HTTPStatusError("x", request=request, response=response)

    assert is_transient(httpx2.ConnectError("refused"))
    assert is_transient(ExceptionGroup("g", [ValueError("v"), status(503)]))
    wrapped = RuntimeError("outer")
    wrapped.__cause__ = status(429)
    assert is_transient(wrapped)
    assert not is_transient(status(404)) and not is_transient(ValueError("no"))


async def test_http_statuses(tmp_path: Path) -> None:
    from tests.replay_server import ReplayServer, Reply

    async def connect(status: int) -> tuple[ServerConnection, int]:
        replies = [Reply.json_error(status, {"error": "no"}) for _ in range(5)]
        server = ReplayServer().add(*replies).start()
        try:
            entry = ServerEntry("web", {"url": server.url + "/mcp"}, "user", tmp_path)
            connection = ServerConnection(entry, tmp_path, McpLog(tmp_path / "mcp.log"))
            connection.start()
            await connection.wait_ready()
            await connection.close()
            return connection, len(server.requests)
        finally:
            server.stop()

    signed_out, tries = await connect(401)
    assert tries == 1 and signed_out.error is not None
    assert "needs sign-in (401)" in signed_out.error and "Authorization" in signed_out.error
    busy, tries = await connect(503)
    assert tries == 3 and busy.error is not None and "(HTTP 503)" in busy.error  # retried twice
