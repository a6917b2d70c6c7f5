"""The question a project's MCP server needs answered before it may start.

A project's ``.pitui/mcp.json`` names a program to run on this machine; the dialog shows
exactly what (command and arguments, or the URL; the working folder; the names of the
environment variables and headers it sets, not their values) and dismisses with True
(allow), False (refuse: not asked again for this command) or None (not now).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from pitui.core.mcp.config import ServerEntry
from pitui.core.sanitize import inert

HINT = "y allow · n refuse (remembered) · Esc not now"


def describe(entry: ServerEntry) -> str:
    """What the server would run, as plain text."""
    config = entry.config
    lines = [f'The project defines the MCP server "{entry.name}" in {entry.source}.']
    if entry.kind == "http":
        lines.append(f"It connects to: {config['url']}")
        if config.get("headers"):
            lines.append(f"with headers: {', '.join(config['headers'])}")
    else:
        lines.append(f"It runs: {entry.transport_label()}")
        lines.append(f"in: {config.get('cwd', '.')} (relative to the project)")
        if config.get("env"):
            lines.append(f"with environment variables: {', '.join(config['env'])}")
    lines.append("Allow it to start? The answer is kept in your pitui home, per command.")
    return "\n".join(lines)


class McpTrustScreen(ModalScreen[bool | None]):
    """Asks once per project server (and again when its command changes)."""

    CSS_PATH = "mcp.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "allow", id="mcp_trust.allow"),
        Binding("n", "answer(False)", "refuse", id="mcp_trust.refuse"),
        Binding("escape", "later", "not now", show=False, id="mcp_trust.later"),
    ]

    def __init__(self, entry: ServerEntry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp"):
            yield Static("Start a project MCP server?", id="mcp-title")
            yield Static(inert(describe(self.entry)), id="mcp-detail", markup=False)
            yield Static(HINT, id="mcp-hint")

    def action_answer(self, allowed: bool) -> None:
        self.dismiss(allowed)

    def action_later(self) -> None:
        self.dismiss(None)
