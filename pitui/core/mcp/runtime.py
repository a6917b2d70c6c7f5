"""A session's MCP servers: which run, which tools reach the model, and how.

The runtime starts every enabled, allowed server in the background when the session
starts (nothing waits for it); the first prompt waits up to 10 s only for servers that
may have ``direct`` tools, which must be declared in its first request (as pi; the
``PITUI_MCP_STARTUP_WAIT_S`` variable changes the 10 s, for a slow machine or a test
that must not depend on how fast a server starts). Before each
prompt it sets the agent's tools (the session's own, then the MCP ones declared on this
branch) and the ``mcp_servers`` section of the system prompt.

Exposure per tool: its ``toolExposure`` entry, else the server's ``exposure``, else
``direct`` for a server with at most :data:`DIRECT_TOOL_LIMIT` tools and ``deferred``
above. ``codemode`` (pi's JavaScript sandbox, which pitui does not have) counts as
``deferred``. ``--tools`` filters MCP tools only when one of its entries starts with
``mcp__`` (and then declares what it names); ``--exclude-tools`` removes matches.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pitui import paths
from pitui.agent.messages import AgentMessage
from pitui.agent.tool import AgentTool
from pitui.ai.types import ToolResultMessage
from pitui.core.mcp.client import ServerConnection
from pitui.core.mcp.config import LoadedConfig, ServerEntry
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.naming import (
    TOOL_SEARCH,
    configured_tool_exposure,
    mcp_namespace,
    name_matcher,
    server_summary,
    tool_names,
)
from pitui.core.mcp.prompt import servers_section
from pitui.core.mcp.resources import resource_tools
from pitui.core.mcp.search import ToolSearchTool
from pitui.core.mcp.tools import McpTool, McpToolSpec, make_tool

NoticeLevel = Literal["info", "warning"]
DIRECT_TOOL_LIMIT = 15
STARTUP_WAIT_S = 10.0
STARTUP_WAIT_ENV = "PITUI_MCP_STARTUP_WAIT_S"


def startup_wait() -> float:
    """The first prompt's wait in seconds: ``PITUI_MCP_STARTUP_WAIT_S``, else (unset,
    not a number, negative) pi's 10 s."""
    try:
        wait = float(os.environ.get(STARTUP_WAIT_ENV, ""))
    except ValueError:
        return STARTUP_WAIT_S
    return wait if wait >= 0 else STARTUP_WAIT_S


def effective_exposure(entry: ServerEntry, tool: str, tool_count: int) -> str:
    """``direct``, ``deferred`` or ``hidden`` for one tool of ``entry``."""
    chosen = configured_tool_exposure(dict(entry.tool_exposure), tool) or entry.exposure
    if chosen is None:
        chosen = "direct" if tool_count <= DIRECT_TOOL_LIMIT else "deferred"
    return "deferred" if chosen == "codemode" else chosen


def may_have_direct_tools(entry: ServerEntry) -> bool:
    """Known before connecting: the first prompt waits for such servers."""
    exposures = {entry.exposure, *entry.tool_exposure.values()}
    return None in exposures or "direct" in exposures


class McpRuntime:
    """The MCP side of one session."""

    def __init__(
        self,
        cwd: Path,
        config: LoadedConfig,
        *,
        allowed: Callable[[ServerEntry], bool] = lambda _e: True,
        tools_filter: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
        log: McpLog | None = None,
    ) -> None:
        self.cwd = cwd
        self.config = config
        self.log = log or McpLog(paths.mcp_log_file())
        self.listeners: list[Callable[[], None]] = []
        listed = list(tools_filter or [])
        wanted = [t for t in listed if t.startswith("mcp__")]
        self._named = name_matcher(wanted) if wanted else None
        # With mcp__ entries --tools is an allowlist for the resource tools and
        # tool_search too (they are MCP's); without, it leaves MCP alone.
        self._listed = name_matcher(listed) if wanted else None
        self._excluded = name_matcher(list(exclude))
        self.connections: dict[str, ServerConnection] = {}
        self.untrusted: list[ServerEntry] = []
        """Enabled project servers not allowed yet (never started)."""
        self.refused: set[str] = set()
        """Project servers the user refused."""
        for entry in config.servers:
            if not entry.enabled:
                continue
            if allowed(entry):
                self.connections[entry.name] = self._connection(entry)
            else:
                self.untrusted.append(entry)
        self._tools: dict[str, McpTool] = {}
        self._loaded: set[str] = set()
        self._waited = False
        self._reported: set[str] = set()
        self._agent_state: Any = None
        self._base_tools: list[AgentTool] = []
        self._base_prompt = ""

    def _connection(self, entry: ServerEntry) -> ServerConnection:
        return ServerConnection(entry, self.cwd, self.log, on_change=lambda _c: self._changed())

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Connect every server in the background."""
        for connection in self.connections.values():
            connection.start()

    def allow(self, entry: ServerEntry) -> None:
        """Start a project server the user just allowed."""
        self.untrusted = [e for e in self.untrusted if e.name != entry.name]
        connection = self.connections.setdefault(entry.name, self._connection(entry))
        connection.start()

    async def close(self) -> None:
        """Stop every server (each with its stdin → SIGTERM → SIGKILL escalation)."""
        await asyncio.gather(*(c.close() for c in self.connections.values()))

    async def wait_all(self) -> None:
        """Wait for servers still connecting (each bounded by its own timeout)."""
        await asyncio.gather(*(c.wait_ready() for c in self.connections.values()))

    async def wait_for_direct(self, within: float | None = None) -> bool:
        """The first prompt's wait (``within`` seconds, default :func:`startup_wait`);
        False when some server was still connecting."""
        # Tools --tools names are declared, so a filter makes every server worth waiting for.
        waiting = [
            c
            for c in self.connections.values()
            if self._named is not None or may_have_direct_tools(c.entry)
        ]
        if not waiting:
            return True
        wait = startup_wait() if within is None else within
        results = await asyncio.gather(*(c.wait_ready(wait) for c in waiting))
        return all(results)

    # ------------------------------------------------------------------ tools

    def refresh(self) -> None:
        """Rebuild the tools after a change of configuration (exposure, servers)."""
        self._changed()

    def _changed(self) -> None:
        self._tools = self._build_tools()
        if self._agent_state is not None:
            self._agent_state.tools = self.declared_with_base()
        for listener in list(self.listeners):
            listener()

    def _build_tools(self) -> dict[str, McpTool]:
        tools: dict[str, McpTool] = {}
        readable = any(c.has_resources for c in self.connections.values())
        for connection in self.connections.values():
            # A dropped server keeps its tools: calling one reconnects it.
            names = tool_names(connection.name, [t.name for t in connection.tools])
            for info in connection.tools:
                name = names[info.name]
                exposure = effective_exposure(connection.entry, info.name, len(connection.tools))
                if self._excluded(name) or (self._named is not None and not self._named(name)):
                    continue
                if self._named is not None and exposure != "hidden":
                    exposure = "direct"  # named by --tools: declared
                spec = McpToolSpec(name, connection.name, info, exposure)
                tools[name] = make_tool(spec, connection, readable)
        return tools

    def tool(self, name: str) -> McpTool | None:
        return self._tools.get(name)

    def tools(self) -> list[McpTool]:
        return list(self._tools.values())

    def _deferred(self) -> list[McpTool]:
        return [t for t in self._tools.values() if t.spec.exposure == "deferred"]

    def _has_deferred(self) -> bool:
        return bool(self._deferred()) or any(self._indirect(c) for c in self.connections.values())

    def declared(self) -> list[AgentTool]:
        """The MCP tools the model sees now: direct ones, those loaded on this branch,
        ``tool_search`` when deferred tools exist, the resource tools when a server has
        resources."""
        found: list[AgentTool] = [
            t
            for t in self._tools.values()
            if t.spec.exposure == "direct"
            or (t.spec.exposure == "deferred" and t.name in self._loaded)
        ]
        if self._has_deferred() and self._keeps(TOOL_SEARCH):
            found.append(ToolSearchTool(self._deferred_unloaded, self._load, self.wait_all))
        if any(c.has_resources and c.state == "connected" for c in self._visible()):
            found += [
                t for t in resource_tools(self._visible, self.wait_all) if self._keeps(t.name)
            ]
        return found

    def _keeps(self, name: str) -> bool:
        return not self._excluded(name) and (self._listed is None or self._listed(name))

    def _visible(self) -> list[ServerConnection]:
        return [c for c in self.connections.values() if c.entry.exposure != "hidden"]

    def _deferred_unloaded(self) -> list[McpTool]:
        return [t for t in self._deferred() if t.name not in self._loaded]

    def _load(self, names: list[str]) -> None:
        self._loaded.update(names)
        if self._agent_state is not None:
            self._agent_state.tools = self.declared_with_base()

    def declared_with_base(self) -> list[AgentTool]:
        base_names = {t.name for t in self._base_tools}
        return [*self._base_tools, *(t for t in self.declared() if t.name not in base_names)]

    # ------------------------------------------------------------------ session

    def attach(self, agent_state: Any) -> None:
        """Take over the agent's tools and system prompt (keeping the session's own)."""
        self._agent_state = agent_state
        self._base_tools = list(agent_state.tools)
        self._base_prompt = agent_state.system_prompt

    async def before_prompt(self, messages: list[AgentMessage]) -> list[tuple[str, NoticeLevel]]:
        """Wait (once) for direct servers; set tools and system prompt. Returns notices
        ``(text, level)``: servers still connecting after the wait, and (once each)
        servers that failed to connect."""
        notices: list[tuple[str, NoticeLevel]] = []
        if not self._waited:
            self._waited = True
            if not await self.wait_for_direct():
                still = (
                    "MCP servers are still connecting; their tools become available once connected."
                )
                notices.append((still, "info"))
        notices += [(text, "warning") for text in self._new_failures()]
        self._loaded = loaded_on_branch(messages)
        self._tools = self._build_tools()
        if self._agent_state is not None:
            self._agent_state.tools = self.declared_with_base()
            section = self.section()
            prompt = self._base_prompt
            self._agent_state.system_prompt = f"{prompt}\n\n{section}" if section else prompt
        return notices

    def _new_failures(self) -> list[str]:
        """One line per server that failed to connect since the last report."""
        lines = []
        for connection in self.connections.values():
            if connection.state == "failed" and connection.name not in self._reported:
                self._reported.add(connection.name)
                reason = (connection.error or "unknown error").split("\n", 1)[0]
                lines.append(f'MCP server "{connection.name}" failed: {reason} (see /mcp)')
        return lines

    def section(self) -> str | None:
        """The ``<mcp_servers>`` section (None without non-direct servers)."""
        listed = []
        for connection in self.connections.values():
            if not self._indirect(connection):
                continue
            summary = server_summary(connection.entry.description, connection.instructions)
            listed.append((mcp_namespace(connection.name), summary))
        text = servers_section(listed)
        return f"<mcp_servers>\n{text}\n</mcp_servers>" if text else None

    def _indirect(self, connection: ServerConnection) -> bool:
        if connection.state == "connected":
            return any(
                t.spec.exposure == "deferred"
                for t in self._tools.values()
                if t.spec.server == connection.name
            )
        entry = connection.entry
        return "deferred" in {entry.exposure, *entry.tool_exposure.values()} or (
            "codemode" in {entry.exposure, *entry.tool_exposure.values()}
        )


def loaded_on_branch(messages: list[AgentMessage]) -> set[str]:
    """Tools ``tool_search`` loaded in ``messages`` (the branch's transcript)."""
    loaded: set[str] = set()
    for message in messages:
        if isinstance(message, ToolResultMessage) and message.tool_name == TOOL_SEARCH:
            details = message.details
            names = details.get("loaded") if isinstance(details, dict) else None
            if isinstance(names, list):
                loaded.update(str(n) for n in names)
    return loaded
