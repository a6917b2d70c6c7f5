"""The user's keys: ``keybindings.json`` applied to the app and the composer, and pi's
Ctrl+C (clear, twice: quit) and Ctrl+D (quit on an empty composer).

Bindings are generated from the action table; this controller applies the user's file
over them (Textual's ``set_keymap`` for app and screen bindings, key sets for the keys
the composer reads itself) and hooks the composer's completion up to the slash commands.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding

from pitui.core.keybindings import Keybindings, display_key, load_keybindings
from pitui.ui.commands import dispatch
from pitui.ui.commands.actions import (
    ACTIONS,
    BY_ID,
    KEY_CATALOGUE,
    default_keybindings,
    hotkey_rows,
)
from pitui.ui.commands.actions import keys_text as _keys_text
from pitui.ui.commands.keymap import action_string, key_set, textual_keymap, to_textual_key
from pitui.ui.widgets.composer import Composer

if TYPE_CHECKING:
    from pitui.ui.host import UiHost

_log = logging.getLogger(__name__)
DOUBLE_PRESS_SECONDS = 0.5
"""A second Ctrl+C within this time quits (pi)."""
QUIT_HINT_SECONDS = 1.5
"""How long the first Ctrl+C's "press again to quit" hint stays."""
EDITOR_KEY_ACTIONS = frozenset({"clear", "exit"})
"""Actions that are pi's editor keys: only on the main screen, Ctrl+D only when empty."""


class KeyController:
    """Applies the user's keys and owns pi's double-press Ctrl+C."""

    def __init__(self, host: UiHost) -> None:
        self.host = host
        self._keybindings = default_keybindings()
        self._last_clear = -1.0

    @property
    def keybindings(self) -> Keybindings:
        """The effective keys of every action."""
        return self._keybindings

    def keys_text(self, action_id: str, unbound: str = "unbound") -> str:
        """How an action's keys are shown (``Ctrl+L``); ``unbound`` when it has none."""
        return _keys_text(self._keybindings, action_id, unbound)

    def hotkey_rows(self) -> list[tuple[str, str, str]]:
        """``/hotkeys``' rows for the keys in effect."""
        return hotkey_rows(self._keybindings)

    async def install(self, keybindings: Keybindings | None = None) -> None:
        """Load ``keybindings.json`` (unless given), apply it and hook up the composer."""
        loaded = keybindings if keybindings is not None else await load_keybindings(KEY_CATALOGUE)
        self.apply(loaded)
        composer = self.host.main.composer
        composer.completer = partial(dispatch.complete, self.host)
        for name in loaded.unknown:  # a newer pi's ids, a typo: the log, not the chat
            _log.warning("keybindings.json: unknown action %r ignored", name)
        if loaded.problems:
            from pitui.ui.view.events import AddNotice  # lazy: not first-frame

            await self.host.apply([AddNotice(str(p), "warning") for p in loaded.problems])

    def apply(self, keybindings: Keybindings) -> None:
        """Make ``keybindings`` the app's keys (Textual keymap + the composer's own keys)."""
        self._keybindings = keybindings
        self.host.set_keymap(textual_keymap(keybindings))
        composer = self.host.main.composer
        composer.submit_keys = key_set(keybindings, "submit")
        composer.newline_keys = key_set(keybindings, "newLine")
        composer.follow_up_keys = key_set(keybindings, "followUp")
        composer.external_editor_keys = key_set(keybindings, "externalEditor")
        composer.paste_image_keys = key_set(keybindings, "pasteImage")
        composer.app_keys = self._keys_taken_from_editor(keybindings)

    def _keys_taken_from_editor(
        self, keybindings: Keybindings
    ) -> dict[str, Callable[[], Awaitable[bool]]]:
        """App keys the composer's own bindings would otherwise swallow (e.g. Ctrl+K)."""
        editor_keys = {b.key for b in Binding.make_bindings(Composer.BINDINGS)}
        taken: dict[str, Callable[[], Awaitable[bool]]] = {}
        for action in ACTIONS:
            if action.scope not in ("app", "screen"):
                continue
            for key in keybindings.keys_for(action.id):
                name = to_textual_key(key)
                if name in editor_keys:
                    taken[name] = partial(self.run_action, action.id)
        return taken

    async def run_action(self, action_id: str) -> bool:
        """Run the action ``action_id`` as its key would; False if it does not apply now."""
        return await self.host.run_action(action_string(action_id))

    def applies(self, action_id: str) -> bool:
        """Whether a key action acts now. Ctrl+C / Ctrl+D are pi's clear / exit only on
        the main screen, outside the tree (its own Ctrl+C / Ctrl+D), Ctrl+D only on an
        empty composer; else the key goes on to the focused widget."""
        if action_id not in EDITOR_KEY_ACTIONS:
            return action_id in BY_ID
        main = self.host.main
        if self.host.screen is not main or main.branches.rows.has_focus:
            return False
        return action_id != "exit" or not main.composer.text

    def clear_editor(self) -> None:
        """Ctrl+C: clear the composer; a second press within 0.5 s quits (pi)."""
        now = time.monotonic()
        if now - self._last_clear < DOUBLE_PRESS_SECONDS:
            self.host.exit()
            return
        self._last_clear = now
        self.host.main.composer.clear()
        # pi quits on a second press but never says so: the status bar's key line says
        # it for a moment (a toast would cover the composer's border at 80x24).
        keys = self._keybindings.keys_for("clear")
        again = display_key(keys[0]) if keys else "it"
        self.host.main.flash_hint(f"press {again} again to quit", QUIT_HINT_SECONDS)
