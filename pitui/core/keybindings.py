"""User key bindings: ``<pitui home>/keybindings.json`` in pi's format (PI_SPEC §9.2).

The file maps an action id to a key or a list of keys (``[]`` unbinds)::

    {"selectModel": "ctrl+k", "app.tools.expand": ["ctrl+o", "f3"], "newSession": []}

Which actions exist, their default keys and their other names (pi 1.6's namespaced ids
such as ``app.model.select``) are the UI's to say: it passes a :class:`KeyCatalogue` built
from its action table. This module knows pi's file format: key ids (``ctrl+shift+p``,
``pageUp``, ``alt+enter``, matched case-insensitively) and the ids of pi's actions that
pitui accepts and does not act on (its editor actions such as ``yank``,
``tui.editor.cursorUp``), so a file copied from pi 0.7x or 1.6 works unchanged.

Parsing is pure and never raises for bad data: a bad key becomes a
:class:`KeybindingProblem` naming the file and the action, and the rest still applies.
An id nobody knows is kept in :attr:`Keybindings.unknown` (the UI logs it once: a file
written for a newer pi is not an error worth a notice).
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pitui import paths
from pitui.errors import ConfigError
from pitui.records import Record


class KeyCatalogue(Record):
    """The bindable actions: default keys by action id, and other ids for them."""

    defaults: Mapping[str, tuple[str, ...]]
    """Action id → its default keys (pi key ids, canonical); empty = unbound."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Another id (pi 1.6's ``app.model.select``) → the action id (``selectModel``)."""


PI_ONLY_ACTIONS: frozenset[str] = frozenset(
    {
        # pi 0.7x app actions pitui does not have (yet)
        "suspend", "toggleSessionNamedFilter",
        # pi 0.7x editor actions
        "cursorUp", "cursorDown", "cursorLeft", "cursorRight", "cursorWordLeft",
        "cursorWordRight", "cursorLineStart", "cursorLineEnd", "jumpForward", "jumpBackward",
        "pageUp", "pageDown", "deleteCharBackward", "deleteCharForward", "deleteWordBackward",
        "deleteWordForward", "deleteToLineStart", "deleteToLineEnd", "tab", "selectUp",
        "selectDown", "selectPageUp", "selectPageDown", "selectConfirm", "selectCancel",
        "copy", "yank", "yankPop", "undo", "treeFoldOrUp", "treeUnfoldOrDown",
        "toggleSessionPath", "toggleSessionSort", "renameSession", "deleteSession",
        "deleteSessionNoninvasive",
        # pi 1.6 application actions pitui does not have (yet); its editor, list and
        # fullscreen actions are the ``tui.`` prefix, below
        "app.suspend",
        "app.session.togglePath", "app.session.toggleSort", "app.session.toggleNamedFilter",
        "app.session.rename", "app.session.delete", "app.session.deleteNoninvasive",
        "app.models.save", "app.thinking.save", "app.message.copy",
        "app.tree.foldOrUp", "app.tree.unfoldOrDown", "app.tree.editLabel",
        "app.tree.toggleLabelTimestamp", "app.tree.filter.default", "app.tree.filter.noTools",
        "app.tree.filter.userOnly", "app.tree.filter.labeledOnly", "app.tree.filter.all",
        "app.tree.filter.cycleForward", "app.tree.filter.cycleBackward",
        "app.models.enableAll", "app.models.clearAll", "app.models.toggleProvider",
        "app.models.reorderUp", "app.models.reorderDown",
    }
)  # fmt: skip
"""pi's action ids pitui accepts in the file but does not act on."""
PI_ONLY_PREFIXES: tuple[str, ...] = ("tui.",)
"""pi 1.6's editor, input, list and fullscreen actions (``tui.editor.yank`` …): pitui's
composer and lists keep their own keys, except the ids an action claims as an alias."""
IGNORED_KEYS: frozenset[str] = frozenset({"$schema"})
"""Keys of the file that are not actions (pi 1.6's files name their JSON schema)."""

MODIFIERS: tuple[str, ...] = ("alt", "ctrl", "shift", "super")
"""Allowed modifiers, in the canonical (alphabetical) order keys are written in."""

SYMBOL_KEYS: frozenset[str] = frozenset("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?")
SPECIAL_KEYS: frozenset[str] = frozenset(
    {
        "escape", "enter", "tab", "space", "backspace", "delete", "insert", "clear", "home",
        "end", "pageup", "pagedown", "up", "down", "left", "right",
        *(f"f{n}" for n in range(1, 13)),
    }
)  # fmt: skip
KEY_ALIASES: Mapping[str, str] = {"esc": "escape", "return": "enter"}
BASE_KEYS: frozenset[str] = (
    frozenset(string.ascii_lowercase) | frozenset(string.digits) | SYMBOL_KEYS | SPECIAL_KEYS
)


class InvalidKeyError(ValueError):
    """A key id that is not one of pi's."""


class KeybindingProblem(Record):
    """One entry of the keybindings file that was not applied."""

    source: str
    action: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.source} ({self.action})" if self.action else self.source
        return f"Keybindings {where}: {self.message}"


@dataclass
class Keybindings:
    """The effective keys of every action, and what in the file was skipped."""

    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    problems: list[KeybindingProblem] = field(default_factory=list)
    overridden: frozenset[str] = frozenset()
    """Actions whose keys came from the file."""
    unknown: tuple[str, ...] = ()
    """Ids in the file that no action and no pi action has."""

    @classmethod
    def defaults(cls, catalogue: KeyCatalogue) -> Keybindings:
        """Every action on its default keys."""
        return cls(dict(catalogue.defaults))

    def keys_for(self, action: str) -> tuple[str, ...]:
        """The keys bound to ``action`` (empty when unbound or unknown)."""
        return self.keys.get(action, ())


def normalize_key(key: str) -> str:
    """pi's key id in canonical form: lower case, modifiers sorted, aliases resolved.

    ``"shift+ctrl+P"`` → ``"ctrl+shift+p"``, ``"pageUp"`` → ``"pageup"``, ``"esc"`` →
    ``"escape"``.

    Raises:
        InvalidKeyError: not a key pi understands.
    """
    text = key.strip().lower()
    if not text:
        raise InvalidKeyError("empty key")
    mods, base = _split(text)
    base = KEY_ALIASES.get(base, base)
    if base not in BASE_KEYS:
        raise InvalidKeyError(f"unknown key {key!r}")
    for mod in mods:
        if mod not in MODIFIERS:
            raise InvalidKeyError(f"unknown modifier {mod!r} in {key!r}")
    if len(set(mods)) != len(mods):
        raise InvalidKeyError(f"repeated modifier in {key!r}")
    return "+".join([*sorted(mods), base])


def parse_keybindings(data: object, source: str, catalogue: KeyCatalogue) -> Keybindings:
    """Apply decoded keybindings JSON over the catalogue's defaults; never raises."""
    result = Keybindings.defaults(catalogue)
    if not isinstance(data, dict):
        result.problems.append(KeybindingProblem(source, None, "must be a JSON object"))
        return result
    overridden: set[str] = set()
    unknown: list[str] = []
    for name, value in data.items():
        action = catalogue.aliases.get(name, name)
        if action not in catalogue.defaults:
            if not _is_pi_only(name):
                unknown.append(name)
            continue
        keys = _parse_value(value, source, action, result.problems)
        if keys is not None:
            result.keys[action] = keys
            overridden.add(action)
    result.overridden = frozenset(overridden)
    result.unknown = tuple(unknown)
    return result


def _is_pi_only(name: str) -> bool:
    return name in PI_ONLY_ACTIONS or name in IGNORED_KEYS or name.startswith(PI_ONLY_PREFIXES)


def _parse_value(
    value: object, source: str, action: str, problems: list[KeybindingProblem]
) -> tuple[str, ...] | None:
    """The keys of one entry; None (keep the default) when nothing usable is left."""
    raw = [value] if isinstance(value, str) else value
    if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
        problems.append(KeybindingProblem(source, action, "expected a key or a list of keys"))
        return None
    keys: list[str] = []
    for item in raw:
        assert isinstance(item, str)
        try:
            normalized = normalize_key(item)
        except InvalidKeyError as exc:
            problems.append(KeybindingProblem(source, action, str(exc)))
            continue
        if normalized not in keys:
            keys.append(normalized)
    if raw and not keys:
        return None
    return tuple(keys)


def parse_keybindings_text(text: str, source: str, catalogue: KeyCatalogue) -> Keybindings:
    """Parse the file's text (invalid JSON → defaults plus one problem)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        result = Keybindings.defaults(catalogue)
        message = f"invalid JSON: {exc.msg} at line {exc.lineno}"
        result.problems.append(KeybindingProblem(source, None, message))
        return result
    return parse_keybindings(data, source, catalogue)


async def load_keybindings(catalogue: KeyCatalogue, path: Path | None = None) -> Keybindings:
    """Read ``keybindings.json`` (default: in the pitui home); a missing file = defaults."""
    from pitui.ai.files import read_config_text  # lazy: imported before the first frame

    file = path or paths.keybindings_file()
    try:
        text = await read_config_text(file)
    except ConfigError as exc:
        result = Keybindings.defaults(catalogue)
        result.problems.append(KeybindingProblem(str(file), None, str(exc)))
        return result
    if text is None:
        return Keybindings.defaults(catalogue)
    return parse_keybindings_text(text, str(file), catalogue)


def _split(key: str) -> tuple[list[str], str]:
    """``ctrl+shift+p`` → ``(["ctrl", "shift"], "p")``; ``ctrl++`` → ``(["ctrl"], "+")``."""
    if key == "+" or key.endswith("++"):
        prefix = key[:-2]
        return (prefix.split("+") if prefix else []), "+"
    *mods, base = key.split("+")
    return mods, base


def display_key(key: str) -> str:
    """``ctrl+shift+p`` → ``Ctrl+Shift+P`` (as pi's ``/hotkeys`` shows keys)."""
    mods, base = _split(key)
    parts = [*mods, _DISPLAY.get(base, base)]
    return "+".join(part[:1].upper() + part[1:] for part in parts)


_DISPLAY = {"pageup": "pageUp", "pagedown": "pageDown"}
