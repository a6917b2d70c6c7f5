"""The command palette (Ctrl+P): every slash command and binding action, and the theme picker."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from textual.app import App, SystemCommand
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from pitui.core.keybindings import ACTIONS, display_key
from pitui.ui.commands import Commands, SlashCommand
from pitui.ui.keymap import ACTION_TARGETS


def _commands_of(provider: Provider) -> Commands | None:
    commands = getattr(provider.app, "commands", None)
    return commands if isinstance(commands, Commands) else None


@dataclass(frozen=True, slots=True)
class PaletteEntry:
    """One palette line: what it shows, its help (keys and id) and what it runs."""

    text: str
    help: str
    run: Callable[[], Awaitable[object] | None]


ACTION_COMMANDS = {
    "newSession": "new",
    "hotkeys": "hotkeys",
    "quit": "quit",
    "selectModel": "model",
    "fork": "fork",
    "tree": "tree",
}
"""Binding actions that do what a slash command does: listed once, as the command, with
the action's keys and id in its help."""
DUPLICATE_SYSTEM_COMMANDS = frozenset({"Quit", "Keys", "Theme"})
"""Textual's palette commands that pitui's own entries cover (/quit, /hotkeys, /theme)."""


def _keys(commands: Commands, action_id: str) -> str:
    keys = commands.keybindings.keys_for(action_id)
    return " / ".join(display_key(k) for k in keys) or "unbound"


def palette_entries(commands: Commands) -> list[PaletteEntry]:
    """Every slash command and every binding action (each with its id), each once."""
    by_command = {name: action for action, name in ACTION_COMMANDS.items()}
    entries = []
    for c in commands.registry.all():
        action_id = by_command.get(c.name)
        bound = action_id is not None and commands.keybindings.keys_for(action_id)
        extra = f"  ·  {_keys(commands, action_id)}" if action_id and bound else ""
        ids = f"/{c.name}, {action_id}" if action_id else f"/{c.name}"
        entries.append(
            PaletteEntry(
                f"/{c.name}", f"{c.description}{extra}  ·  id: {ids}", _runner(commands, c)
            )
        )
    listed = {f"/{c.name}" for c in commands.registry.all()}
    for action in ACTIONS:
        if action.id not in ACTION_TARGETS or action.id == "commandPalette":
            continue
        if f"/{ACTION_COMMANDS.get(action.id)}" in listed:
            continue
        shown = _keys(commands, action.id)
        entries.append(
            PaletteEntry(
                action.description,
                f"{shown}  ·  id: {action.id}",
                _action_runner(commands, action.id),
            )
        )
    return entries


def _runner(commands: Commands, command: SlashCommand) -> Callable[[], None]:
    return lambda: commands.run(f"/{command.name}")


def _action_runner(commands: Commands, action_id: str) -> Callable[[], Awaitable[bool]]:
    return lambda: commands.run_action(action_id)


class PituiCommandProvider(Provider):
    """The command palette's source: slash commands and binding actions."""

    def _entries(self) -> Sequence[PaletteEntry]:
        commands = _commands_of(self)
        return palette_entries(commands) if commands is not None else []

    async def discover(self) -> Hits:
        for entry in self._entries():
            yield DiscoveryHit(entry.text, entry.run, help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in self._entries():
            score = max(matcher.match(entry.text), matcher.match(entry.help) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(entry.text), entry.run, entry.text, entry.help)


def open_theme_picker(app: App[Any]) -> None:
    """A palette over the discovered pi themes (``/theme`` without a name)."""
    app.push_screen(CommandPalette(providers=[ThemePickerProvider], placeholder="Search themes…"))


def system_commands(app: App[Any], base: Iterable[SystemCommand]) -> Iterable[SystemCommand]:
    """Textual's system commands without those pitui lists itself (Quit, Keys, Theme)."""
    for command in base:
        if command.title not in DUPLICATE_SYSTEM_COMMANDS:
            yield command


class ThemePickerProvider(Provider):
    """Discovered pi themes, for ``/theme`` without a name."""

    def _names(self) -> list[str]:
        commands = _commands_of(self)
        return commands.theme_names() if commands is not None else []

    def _switch(self, name: str) -> Callable[[], None]:
        def switch() -> None:
            commands = _commands_of(self)
            if commands is not None:
                self.app.run_worker(commands.set_theme(name))

        return switch

    async def discover(self) -> Hits:
        for name in self._names():
            yield DiscoveryHit(name, self._switch(name), help=f"theme: {name}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name in self._names():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._switch(name), name)
