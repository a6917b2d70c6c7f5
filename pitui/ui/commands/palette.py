"""The command palette (Ctrl+P), drawn from the action table.

Every slash command is listed once, as ``/name``, with the keys and id of its action;
then every key action without a slash command. Loaded when the palette first opens.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from textual.app import App, SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider

from pitui.ui.commands import dispatch
from pitui.ui.commands.actions import ACTIONS, Action

if TYPE_CHECKING:
    from pitui.ui.host import UiHost

DUPLICATE_SYSTEM_COMMANDS = frozenset({"Quit", "Keys", "Theme"})
"""Textual's palette commands that pitui's own entries cover (/quit, /hotkeys, /theme)."""


@dataclass(frozen=True, slots=True)
class PaletteEntry:
    """One palette line: what it shows, its help (keys and id) and what it runs."""

    text: str
    help: str
    run: Callable[[], Awaitable[object] | None]


def palette_entries(host: UiHost) -> list[PaletteEntry]:
    """Every slash command, then every other key action (each with its id), each once."""
    entries = [_command_entry(host, a) for a in ACTIONS if a.slash and a.palette]
    entries += [
        _action_entry(host, a)
        for a in ACTIONS
        if not a.slash and a.palette and a.scope in ("app", "screen")
    ]
    return entries


def _command_entry(host: UiHost, action: Action) -> PaletteEntry:
    bound = action.bindable and host.keys.keybindings.keys_for(action.id)
    extra = f"  ·  {host.keys.keys_text(action.id)}" if bound else ""
    ids = f"/{action.slash}, {action.id}" if action.bindable else f"/{action.slash}"
    text = f"/{action.slash}"
    return PaletteEntry(
        text,
        f"{action.command_text}{extra}  ·  id: {ids}",
        lambda: dispatch.run(host, text),
    )


def _action_entry(host: UiHost, action: Action) -> PaletteEntry:
    shown = host.keys.keys_text(action.id)
    return PaletteEntry(
        action.description,
        f"{shown}  ·  id: {action.id}",
        lambda: host.keys.run_action(action.id),
    )


def _host(provider: Provider) -> UiHost:
    # Only pitui's app installs this provider (PituiApp.COMMANDS).
    return cast("UiHost", provider.app)


class PituiCommandProvider(Provider):
    """The command palette's source: slash commands and key actions."""

    def _entries(self) -> Sequence[PaletteEntry]:
        return palette_entries(_host(self))

    async def discover(self) -> Hits:
        for entry in self._entries():
            yield DiscoveryHit(entry.text, entry.run, help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in self._entries():
            score = max(matcher.match(entry.text), matcher.match(entry.help) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(entry.text), entry.run, entry.text, entry.help)


def system_commands(app: App[Any], base: Iterable[SystemCommand]) -> Iterable[SystemCommand]:
    """Textual's system commands without those pitui lists itself (Quit, Keys, Theme)."""
    for command in base:
        if command.title not in DUPLICATE_SYSTEM_COMMANDS:
            yield command
