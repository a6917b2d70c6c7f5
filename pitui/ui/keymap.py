"""pi key ids → Textual key names, and the app's bindings built from the action table.

:mod:`pitui.core.keybindings` owns the actions, their default keys and the parsing of the
user's file; this module turns its key ids into Textual's names (``ctrl+]`` →
``ctrl+right_square_bracket``, ``pageUp`` → ``pageup``) so the app can apply them with
Textual's ``set_keymap``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from textual.binding import Binding
from textual.keys import KEY_NAME_REPLACEMENTS

from pitui.core.keybindings import ACTIONS, Keybindings

UNBOUND = "pitui_unbound"
"""A key name no terminal sends: Textual needs a key, an unbound action gets this one."""

COMPOSER_ACTIONS = frozenset({"submit", "newLine", "followUp"})
"""Actions the composer handles itself (keys it reads in its key handler)."""

ACTION_TARGETS: dict[str, tuple[str, str]] = {
    "interrupt": ("app", "interrupt"),
    "clear": ("app", "clear_editor"),
    "exit": ("app", "exit_if_empty"),
    "cycleModelForward": ("app", "cycle_model(1)"),
    "cycleModelBackward": ("app", "cycle_model(-1)"),
    "cycleThinkingLevel": ("main", "app.cycle_thinking"),
    "selectModel": ("app", "select_model"),
    "expandTools": ("app", "toggle_tools"),
    "toggleThinking": ("app", "toggle_thinking"),
    "dequeue": ("app", "dequeue"),
    "newSession": ("app", "new_session"),
    "resume": ("app", "resume"),
    "commandPalette": ("app", "command_palette"),
    "hotkeys": ("app", "hotkeys"),
    "contextInspector": ("app", "context_inspector"),
    "quit": ("app", "quit"),
    "toggleToolPane": ("main", "toggle_tool_pane"),
    "focusConversation": ("main", "focus_conversation"),
    "searchConversation": ("main", "open_search"),
    "tree": ("main", "toggle_branches"),
    "fork": ("app", "fork"),
    "previousBranch": ("app", "switch_branch(-1)"),
    "nextBranch": ("app", "switch_branch(1)"),
}
"""Action id → (``app`` or ``main`` screen, Textual action) for every Textual binding."""

_DEFAULTS = {action.id: action.default for action in ACTIONS}
_DESCRIPTIONS = {action.id: action.description for action in ACTIONS}


def to_textual_key(key: str) -> str:
    """A canonical pi key id (see ``normalize_key``) as Textual names it."""
    if key == "+" or key.endswith("++"):
        mods, base = key[:-2].split("+") if len(key) > 2 else [], "+"
    else:
        *mods, base = key.split("+")
    if len(base) == 1 and not base.isalnum():
        name = unicodedata.name(base).lower().replace("-", "_").replace(" ", "_")
        base = KEY_NAME_REPLACEMENTS.get(name, name)
    return "+".join([*mods, base])


def textual_keys(keys: Iterable[str]) -> str:
    """Comma-joined Textual key names (``UNBOUND`` for none), as a Binding's key."""
    names = [to_textual_key(key) for key in keys]
    return ",".join(names) if names else UNBOUND


def binding(action_id: str, *, priority: bool = False) -> Binding:
    """A Textual binding for pitui action ``action_id`` with its default keys."""
    return Binding(
        textual_keys(_DEFAULTS[action_id]),
        ACTION_TARGETS[action_id][1],
        _DESCRIPTIONS[action_id],
        show=False,
        priority=priority,
        id=action_id,
    )


def textual_keymap(bindings: Keybindings) -> dict[str, str]:
    """The ``set_keymap`` argument: every action bound through Textual bindings."""
    return {
        action: textual_keys(keys)
        for action, keys in bindings.keys.items()
        if action not in COMPOSER_ACTIONS
    }


def key_set(bindings: Keybindings, action_id: str) -> frozenset[str]:
    """The Textual key names of one action (for widgets that read keys themselves)."""
    return frozenset(to_textual_key(key) for key in bindings.keys_for(action_id))
