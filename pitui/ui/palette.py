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


def palette_entries(commands: Commands) -> list[PaletteEntry]:
    """Every slash command and every binding action (each with its id)."""
    entries = [
        PaletteEntry(f"/{c.name}", f"{c.description}  ·  id: /{c.name}", _runner(commands, c))
        for c in commands.registry.all()
    ]
    for action in ACTIONS:
        if action.id not in ACTION_TARGETS or action.id == "commandPalette":
            continue
        keys = commands.keybindings.keys_for(action.id)
        shown = " / ".join(display_key(k) for k in keys) or "unbound"
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
    """Textual's system commands with "Theme" opening the pi theme picker instead."""
    for command in base:
        if command.title == "Theme":
            yield SystemCommand("Theme", "Switch theme (/theme)", lambda: open_theme_picker(app))
        else:
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
