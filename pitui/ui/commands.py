"""Slash commands, their completion, the command palette and the user's keybindings.

Commands live in a :class:`CommandRegistry` (name → handler, description, argument hint,
argument completions); dispatch looks the name up, never branches on it. The built-in
commands are in :mod:`pitui.ui.command_handlers`, the palette's providers in
:mod:`pitui.ui.palette`. :class:`Commands` is the app's controller for all of this: it
runs typed ``/cmd`` lines, feeds the composer's autocomplete, opens the pickers and
applies ``keybindings.json``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding

from pitui.core.fuzzy import fuzzy_filter
from pitui.core.keybindings import Keybindings, display_key, load_keybindings
from pitui.errors import PituiError
from pitui.ui.keymap import ACTION_TARGETS, key_set, textual_keymap, to_textual_key
from pitui.ui.widgets.composer import Composer

if TYPE_CHECKING:
    # Only for types: the façade and the model picker load after the first frame.
    from pitui.ai.types import Model
    from pitui.core.agent_session import AgentSession
    from pitui.ui.app import PituiApp
    from pitui.ui.view.state import NoticeLevel
    from pitui.ui.widgets.suggestions import Suggestion

Handler = Callable[["Commands", str], Awaitable[None]]
ArgumentCompleter = Callable[["Commands", str], list[str]]
NO_SESSION = "No session is connected."
DOUBLE_PRESS_SECONDS = 0.5
"""A second Ctrl+C within this time quits (pi)."""
QUIT_HINT_SECONDS = 1.5
"""How long the first Ctrl+C's "press again to quit" hint stays."""


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One ``/name [args]`` command."""

    name: str
    description: str
    handler: Handler
    arg_hint: str = ""
    """Shown in completions, e.g. ``[name]``."""
    complete_args: ArgumentCompleter | None = None
    """Completions for the argument typed so far."""


class CommandRegistry:
    """Commands by name, in registration order."""

    def __init__(self, commands: Iterable[SlashCommand] = ()) -> None:
        self._commands: dict[str, SlashCommand] = {}
        for command in commands:
            self.register(command)

    def register(self, command: SlashCommand) -> None:
        """Add (or replace) a command."""
        self._commands[command.name] = command

    def get(self, name: str) -> SlashCommand | None:
        """The command called ``name``."""
        return self._commands.get(name)

    def all(self) -> list[SlashCommand]:
        """Every command."""
        return list(self._commands.values())


def split_command(text: str) -> tuple[str, str] | None:
    """``"/name arg text"`` → ``("name", "arg text")``; None when it is not a command.

    A path such as ``/usr/bin/env is broken`` is a prompt, not a command.
    """
    text = text.strip()
    if not text.startswith("/") or len(text) < 2:
        return None
    name, _, arg = text[1:].partition(" ")
    if not name or "/" in name or "\n" in name:
        return None
    return name, arg.strip()


class Commands:
    """The app's slash commands, palette entries and keybindings."""

    def __init__(self, app: PituiApp, registry: CommandRegistry | None = None) -> None:
        from pitui.ui.command_handlers import builtin_commands

        self.app = app
        self.registry = registry or CommandRegistry(builtin_commands())
        self.keybindings = Keybindings()
        self._last_clear = -1.0

    # ------------------------------------------------------------------ keybindings

    async def install(self, keybindings: Keybindings | None = None) -> None:
        """Load ``keybindings.json`` (unless given), apply it and hook up the composer."""
        bindings = keybindings if keybindings is not None else await load_keybindings()
        self.apply_keybindings(bindings)
        composer = self.app.main.query_one(Composer)
        composer.completer = self.complete
        if bindings.problems:
            from pitui.ui.view.events import AddNotice  # lazy: not first-frame

            await self.app.apply([AddNotice(str(p), "warning") for p in bindings.problems])

    def apply_keybindings(self, bindings: Keybindings) -> None:
        """Make ``bindings`` the app's keys (Textual keymap + the composer's own keys)."""
        self.keybindings = bindings
        self.app.set_keymap(textual_keymap(bindings))
        composer = self.app.main.query_one(Composer)
        composer.submit_keys = key_set(bindings, "submit")
        composer.newline_keys = key_set(bindings, "newLine")
        composer.follow_up_keys = key_set(bindings, "followUp")
        composer.app_keys = self._keys_taken_from_editor(bindings)

    def _keys_taken_from_editor(
        self, bindings: Keybindings
    ) -> dict[str, Callable[[], Awaitable[bool]]]:
        """App keys the composer's own bindings would otherwise swallow (e.g. Ctrl+K)."""
        editor_keys = {b.key for b in Binding.make_bindings(Composer.BINDINGS)}
        taken: dict[str, Callable[[], Awaitable[bool]]] = {}
        for action_id in ACTION_TARGETS:
            for key in bindings.keys_for(action_id):
                name = to_textual_key(key)
                if name in editor_keys:
                    taken[name] = partial(self.run_action, action_id)
        return taken

    # ------------------------------------------------------------------ slash commands

    def is_command(self, text: str) -> bool:
        """Whether submitting ``text`` runs a command (or reports an unknown one)."""
        return split_command(text) is not None

    def run(self, text: str) -> None:
        """Dispatch ``text`` in a worker (handlers may wait for the session)."""
        self.app.run_worker(self.dispatch(text), group="commands", exit_on_error=False)

    async def dispatch(self, text: str) -> None:
        """Run the command ``text`` names; unknown names and errors become notices."""
        parsed = split_command(text)
        if parsed is None:
            return
        name, arg = parsed
        command = self.registry.get(name)
        if command is None:
            await self.notice(f"Unknown command: /{name}", "warning")
            return
        await self.guarded(command.handler(self, arg))

    async def guarded(self, work: Awaitable[None]) -> None:
        """Await ``work``; a :class:`PituiError` becomes an error notice."""
        try:
            await work
        except PituiError as exc:
            await self.notice(f"Error: {exc}", "error")

    def complete(self, text: str) -> list[Suggestion]:
        """Suggestions for the composer text: command names, then arguments (as pi)."""
        from pitui.ui.widgets.suggestions import Suggestion  # loaded with the list it fills

        if not text.startswith("/") or "\n" in text:
            return []
        name, space, arg = text[1:].partition(" ")
        if not space:
            commands = fuzzy_filter(self.registry.all(), name, lambda c: c.name)
            return [
                Suggestion(f"/{c.name} ", f"/{c.name} {c.arg_hint}".rstrip(), c.description)
                for c in commands
            ]
        command = self.registry.get(name)
        if command is None or command.complete_args is None:
            return []
        return [
            Suggestion(f"/{name} {value}", value)
            for value in fuzzy_filter(command.complete_args(self, arg), arg.strip(), str)
        ]

    # ------------------------------------------------------------------ helpers for handlers

    @property
    def session(self) -> AgentSession | None:
        """The connected session (the app's live session: commands need the whole façade)."""
        live = self.app.live
        return live.session if live is not None else None

    def require_session(self) -> AgentSession:
        """The session, or a :class:`PituiError` the dispatcher turns into a notice."""
        session = self.session
        if session is None:
            raise PituiError(NO_SESSION)
        return session

    async def notice(self, text: str, level: NoticeLevel = "info") -> None:
        """Show a line in the conversation."""
        from pitui.ui.view.events import AddNotice

        await self.app.apply([AddNotice(text, level)])

    def notice_after_events(self, text: str, level: NoticeLevel = "info") -> None:
        """A notice shown after the session events sent so far (e.g. after a rebuild)."""
        if self.app.bridge is not None:
            self.app.bridge.flush()  # posts the pending batch; the notice queues behind it
        self.app.call_later(self.notice, text, level)

    def refresh_status(self) -> None:
        """Redraw the status bar from the session's facts now."""
        live = self.app.live
        if live is not None:
            self.app.update_info(live.info())

    async def switch_model(self, model: Model) -> None:
        """Make ``model`` the session's model (a ``model_change`` entry) and say so."""
        session = self.require_session()
        await session.set_model(model)
        self.refresh_status()
        await self.notice(f"Model: {model.id}")
        if session.registry.usable_reason(model) is None:
            await self.notice(
                f"No API key for {model.provider}: add one, or pick another model with "
                f"{self.keys_text('selectModel')}",
                "warning",
            )

    def keys_text(self, action_id: str) -> str:
        """How the keys of an action are shown (``Ctrl+L``), or ``/hotkeys`` if unbound."""
        keys = self.keybindings.keys_for(action_id)
        return " / ".join(display_key(k) for k in keys) if keys else "/model"

    async def cycle_model(self, step: int) -> None:
        """Next (or previous) usable model after the current one, as pi's Ctrl+P."""
        session = self.require_session()
        models = session.registry.available()
        current = session.model
        keys = [(m.provider, m.id) for m in models]
        here = (current.provider, current.id) if current else None
        if len(models) < 2 and (here is None or here in keys):
            await self.notice("Only one model available")
            return
        index = keys.index(here) if here in keys else -1 if step > 0 else 0
        model = models[(index + step) % len(models)]
        await session.set_model(model)
        self.refresh_status()
        level = session.thinking_level
        thinking = f" (thinking: {level})" if model.reasoning and level != "off" else ""
        await self.notice(f"Switched to {model.name or model.id}{thinking}")

    # ------------------------------------------------------------------ editor keys

    def editor_key_applies(self, action: str) -> bool:
        """Whether Ctrl+C / Ctrl+D act as pi's clear / exit now (else the key goes on)."""
        if self.app.screen is not self.app.main:
            return False
        if self.app.main.branches.rows.has_focus:
            return False  # the tree's own Ctrl+C / Ctrl+D (back, default filter)
        return action != "exit_if_empty" or not self.app.main.query_one(Composer).text

    def clear_editor(self) -> None:
        """Ctrl+C: clear the composer; a second press within 0.5 s quits (pi)."""
        now = time.monotonic()
        if now - self._last_clear < DOUBLE_PRESS_SECONDS:
            self.app.exit()
            return
        self._last_clear = now
        self.app.main.query_one(Composer).clear()
        # pi quits on a second press but never says so; a toast, gone by itself.
        keys = self.keybindings.keys_for("clear")
        again = display_key(keys[0]) if keys else "it"
        self.app.notify(f"Press {again} again quickly to quit", timeout=QUIT_HINT_SECONDS)

    # ------------------------------------------------------------------ themes

    async def set_theme(self, name: str) -> None:
        """Switch theme by pi name, with a notice either way."""
        if self.app.switch_theme(name):
            await self.notice(f"Theme: {name}")
        else:
            known = ", ".join(self.theme_names())
            await self.notice(f'Unknown theme "{name}". Available: {known}', "warning")

    def theme_names(self) -> list[str]:
        """The pi themes found at start-up, sorted."""
        return sorted(self.app.themes.themes)

    async def run_action(self, action_id: str) -> bool:
        """Run the Textual action of a pitui action id; False if it does not apply now."""
        target, action = ACTION_TARGETS[action_id]
        node = self.app.main if target == "main" else self.app
        return await self.app.run_action(action, node)
