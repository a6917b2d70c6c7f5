"""What ``/mcp`` shows and does: server rows, and the changes a user makes there.

Rows come attention-first (not allowed yet, failed, disconnected, connecting, connected,
disabled), each with its state, tool count, exposure and source file. Changes (enable,
disable, exposure) are saved to the file that defines the server (or its project
override) without disturbing the rest, then applied to the running session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from pitui.core.mcp.client import ServerConnection, ToolInfo
from pitui.core.mcp.config import ServerEntry, update_server
from pitui.core.mcp.runtime import McpRuntime, effective_exposure
from pitui.core.mcp.trust import needs_trust, trust_subject
from pitui.core.trust import load_trust

EXPOSURE_CHOICES = ("direct", "deferred", "hidden")
_RANK = {"untrusted": 0, "refused": 5, "failed": 1, "disconnected": 2, "connecting": 3, "idle": 3,
         "connected": 4, "closed": 4, "disabled": 5}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ServerRow:
    """One server as ``/mcp`` lists it."""

    name: str
    state: str
    """``connected``, ``failed``, ``disconnected``, ``connecting``, ``disabled``,
    ``untrusted`` (a project server not allowed yet), ``refused`` (you said no)."""
    tool_count: int
    exposure: str
    """The configured exposure, or ``auto`` (direct up to 15 tools)."""
    source: str
    transport: str
    error: str | None
    stderr_tail: tuple[str, ...]
    tools: tuple[tuple[str, str, bool], ...]
    """``(tool name, effective exposure, read-only)`` of each tool."""

    @property
    def summary(self) -> str:
        tools = f"{self.tool_count} tool{'s' * (self.tool_count != 1)}"
        state = "not allowed yet" if self.state == "untrusted" else self.state
        return f"{self.name} · {state} · {tools} · {self.exposure} · {self.source}"


def _row(entry: ServerEntry, connection: ServerConnection | None, untrusted: bool) -> ServerRow:
    if not entry.enabled:
        state = "disabled"
    elif untrusted:
        state = "untrusted"
    elif connection is None:
        state = "refused"
    else:
        state = connection.state
    infos: list[ToolInfo] = connection.tools if connection is not None else []
    count = len(infos)
    tools = tuple(
        (info.name, effective_exposure(entry, info.name, count), info.read_only) for info in infos
    )
    source = f"{entry.scope}: {entry.source}" + (
        f" (override: {entry.override})" if entry.override else ""
    )
    return ServerRow(
        name=entry.name,
        state=state,
        tool_count=count,
        exposure=entry.exposure or "auto",
        source=source,
        transport=entry.transport_label(),
        error=connection.error if connection is not None else None,
        stderr_tail=tuple(connection.stderr_tail) if connection is not None else (),
        tools=tools,
    )


def server_rows(runtime: McpRuntime) -> list[ServerRow]:
    """Every configured server, attention first, then by name."""
    untrusted = {e.name for e in runtime.untrusted}
    rows = [
        _row(entry, runtime.connections.get(entry.name), entry.name in untrusted)
        for entry in runtime.config.servers
    ]
    return sorted(rows, key=lambda r: (_RANK.get(r.state, 3), r.name))


def _entry(runtime: McpRuntime, name: str) -> ServerEntry:
    entry = runtime.config.find(name)
    if entry is None:
        raise KeyError(name)
    return entry


def _replace_entry(runtime: McpRuntime, entry: ServerEntry) -> None:
    runtime.config.servers = [entry if e.name == entry.name else e for e in runtime.config.servers]
    connection = runtime.connections.get(entry.name)
    if connection is not None:
        connection.entry = entry


async def _save(entry: ServerEntry, patch: dict[str, Any]) -> ServerEntry:
    await update_server(entry.edit_file, entry.name, patch)
    return msgspec.structs.replace(entry, config={**entry.config, **patch})


async def reconnect(runtime: McpRuntime, name: str) -> None:
    connection = runtime.connections.get(name)
    if connection is not None:
        await connection.reconnect()


async def set_enabled(runtime: McpRuntime, name: str, enabled: bool) -> None:
    """Save ``enabled`` and start or stop the server now."""
    entry = await _save(_entry(runtime, name), {"enabled": enabled})
    _replace_entry(runtime, entry)
    connection = runtime.connections.get(name)
    if not enabled and connection is not None:
        del runtime.connections[name]
        await connection.close()
        runtime.refresh()
    elif enabled and connection is None and name not in {e.name for e in runtime.untrusted}:
        store = await load_trust()
        if not needs_trust(entry) or store.decision(runtime.cwd, trust_subject(entry)):
            runtime.allow(entry)
        else:
            runtime.untrusted.append(entry)


async def set_exposure(runtime: McpRuntime, name: str, exposure: str) -> None:
    """Save the server's exposure; its tools are declared accordingly from the next call."""
    entry = await _save(_entry(runtime, name), {"exposure": exposure})
    _replace_entry(runtime, entry)
    runtime.refresh()


async def allow_project_server(runtime: McpRuntime, name: str, allowed: bool) -> None:
    """The user's answer about a project server: remembered in the trust store (in the
    pitui home), and the server started when allowed."""
    entry = _entry(runtime, name)
    store = await load_trust()
    await store.decide(runtime.cwd, trust_subject(entry), allowed)
    if allowed:
        runtime.allow(entry)
    else:
        runtime.untrusted = [e for e in runtime.untrusted if e.name != name]
        runtime.refused.add(name)
