"""pi key ids → Textual key names, and Textual bindings generated from the action table.

:mod:`pitui.core.keybindings` parses the user's file in pi's key ids; this module turns
them into Textual's names (``ctrl+]`` → ``ctrl+right_square_bracket``, ``pageUp`` →
``pageup``) so the app applies them with Textual's ``set_keymap``. Every binding runs the
app's one ``pitui`` action with the action id: the table's handler does the rest.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from textual.binding import Binding
from textual.keys import KEY_NAME_REPLACEMENTS

from pitui.core.keybindings import Keybindings
from pitui.ui.commands.actions import ACTIONS, BY_ID, Action, Scope

UNBOUND = "pitui_unbound"
"""A key name no terminal sends: Textual needs a key, an unbound action gets this one."""


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


def action_string(action_id: str) -> str:
    """The Textual action that runs ``action_id`` (the app's ``pitui`` action)."""
    return f"app.pitui({action_id!r})"


def binding(action: Action) -> Binding:
    """A Textual binding for ``action`` with its default keys."""
    return Binding(
        textual_keys(action.keys),
        action.textual_action or action_string(action.id),
        action.description,
        show=False,
        priority=action.priority,
        id=action.id,
    )


def bindings(scope: Scope) -> list[Binding]:
    """The bindings of every action bound on ``scope`` (``app`` or ``screen``)."""
    return [binding(a) for a in ACTIONS if a.scope == scope]


def textual_keymap(keybindings: Keybindings) -> dict[str, str]:
    """The ``set_keymap`` argument: every action bound through Textual bindings."""
    return {
        action: textual_keys(keys)
        for action, keys in keybindings.keys.items()
        if action in BY_ID and BY_ID[action].scope in ("app", "screen")
    }


def key_set(keybindings: Keybindings, action_id: str) -> frozenset[str]:
    """The Textual key names of one action (for widgets that read keys themselves)."""
    return frozenset(to_textual_key(key) for key in keybindings.keys_for(action_id))
