"""``/mcp``: the session's MCP servers, attention first, and what can be done about them.

The list shows each server's state, tool count, exposure and source; the pane below
shows the highlighted server's tools (effective exposure, read-only marks), its full
connection error and the tail of its stderr. Keys act on the highlighted server:
``r`` reconnect, ``e`` enable/disable, ``x`` next exposure (direct → deferred →
hidden), ``a`` allow a project server (``n`` refuse it). Changes are saved to the file
that defines the server. Everything a server sent is shown inert.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pitui.core.mcp import manage
from pitui.core.mcp.manage import EXPOSURE_CHOICES, ServerRow
from pitui.core.mcp.runtime import McpRuntime
from pitui.core.sanitize import inert

EMPTY = "No MCP servers configured (~/.pitui/mcp.json, .pitui/mcp.json)."
HINT = "↑/↓ select · r reconnect · e enable/disable · x exposure · a allow / n refuse · Esc close"


def detail_text(row: ServerRow) -> str:
    """The detail pane of one server (plain text; shown inert)."""
    lines = [row.summary, f"runs: {row.transport}"]
    if row.state == "untrusted":
        lines.append("A project server: press a to allow it to start, n to refuse.")
    if row.error:
        lines += ["", "error:", row.error]
    if row.tools:
        lines += ["", "tools:"]
        for name, exposure, read_only in row.tools:
            mark = " (read-only)" if read_only else ""
            lines.append(f"  {name} [{exposure}]{mark}")
    if row.stderr_tail:
        lines += ["", "stderr (last lines):", *row.stderr_tail[-10:]]
    return "\n".join(lines)


class McpScreen(ModalScreen[None]):
    """Lists :func:`manage.server_rows` of ``runtime`` (None: no servers configured)."""

    CSS_PATH = "mcp.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reconnect", "reconnect", id="mcp.reconnect"),
        Binding("e", "switch", "enable/disable", id="mcp.switch"),
        Binding("x", "exposure", "exposure", id="mcp.exposure"),
        Binding("a", "allow", "allow", id="mcp.allow"),
        Binding("n", "refuse", "refuse", id="mcp.refuse"),
        Binding("escape,q", "close", "close", show=False, id="mcp.close"),
    ]

    def __init__(self, runtime: McpRuntime | None) -> None:
        super().__init__()
        self.runtime = runtime
        self.rows: list[ServerRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp"):
            yield Static("MCP servers", id="mcp-title")
            yield OptionList(id="mcp-list")
            with VerticalScroll(id="mcp-detail-scroll"):
                yield Static("", id="mcp-detail", markup=False)
            yield Static(HINT, id="mcp-hint")

    def on_mount(self) -> None:
        if self.runtime is not None:
            self.runtime.listeners.append(self._fill)
        self._fill()
        self.query_one(OptionList).focus()

    def on_unmount(self) -> None:
        if self.runtime is not None and self._fill in self.runtime.listeners:
            self.runtime.listeners.remove(self._fill)

    def _selected(self) -> ServerRow | None:
        index = self.query_one(OptionList).highlighted
        return self.rows[index] if index is not None and index < len(self.rows) else None

    def _fill(self) -> None:
        """Rebuild the list, keeping the highlighted server."""
        current = self._selected()
        self.rows = manage.server_rows(self.runtime) if self.runtime is not None else []
        options = self.query_one(OptionList)
        options.clear_options()
        if not self.rows:
            options.add_option(Option(EMPTY, id="empty", disabled=True))
            self._show(None)
            return
        options.add_options(Option(Content(inert(row.summary))) for row in self.rows)
        names = [row.name for row in self.rows]
        options.highlighted = names.index(current.name) if current and current.name in names else 0
        self._show(self._selected())

    def _show(self, row: ServerRow | None) -> None:
        self.query_one("#mcp-detail", Static).update(inert(detail_text(row)) if row else "")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(self._selected())

    async def _act(self, action: str) -> None:
        row, runtime = self._selected(), self.runtime
        if row is None or runtime is None:
            return
        try:
            if action == "reconnect" and row.state not in ("disabled", "untrusted", "refused"):
                self.notify(f"Reconnecting {row.name}…")
                await manage.reconnect(runtime, row.name)
            elif action == "toggle":
                await manage.set_enabled(runtime, row.name, row.state == "disabled")
            elif action == "exposure":
                await manage.set_exposure(runtime, row.name, _next_exposure(row.exposure))
            elif action in ("allow", "refuse") and row.state in ("untrusted", "refused"):
                await manage.allow_project_server(runtime, row.name, action == "allow")
        except Exception as exc:  # a file that cannot be written: say so, keep the screen
            self.notify(inert(f"MCP: {exc}"), severity="error")
        self._fill()

    async def action_reconnect(self) -> None:
        await self._act("reconnect")

    async def action_switch(self) -> None:
        await self._act("toggle")

    async def action_exposure(self) -> None:
        await self._act("exposure")

    async def action_allow(self) -> None:
        await self._act("allow")

    async def action_refuse(self) -> None:
        await self._act("refuse")

    def action_close(self) -> None:
        self.dismiss(None)


def _next_exposure(current: str) -> str:
    if current not in EXPOSURE_CHOICES:
        return EXPOSURE_CHOICES[0] if current != "direct" else EXPOSURE_CHOICES[1]
    return EXPOSURE_CHOICES[(EXPOSURE_CHOICES.index(current) + 1) % len(EXPOSURE_CHOICES)]
