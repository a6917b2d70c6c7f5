"""User key bindings: ``<pitui home>/keybindings.json`` in pi's format (PI_SPEC §9.2).

The file maps an action id to a key or a list of keys (``[]`` unbinds)::

    {"selectModel": "ctrl+k", "expandTools": ["ctrl+o", "f3"], "newSession": []}

Action ids are pi's where pi has the action (``interrupt``, ``selectModel``,
``cycleThinkingLevel`` …) plus a few of pitui's own (``commandPalette``, ``quit`` …). pi's
other ids (its editor actions such as ``yank``) are accepted and ignored, so a file
copied from pi works unchanged. Keys are pi's key ids (``ctrl+shift+p``, ``pageUp``,
``alt+enter``), matched case-insensitively.

Parsing is pure and never raises for bad data: an unknown action or a bad key becomes a
:class:`KeybindingProblem` naming the file and the action, and the rest still applies.
Turning key ids into a UI toolkit's key names is the UI's job.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pitui import paths
from pitui.errors import ConfigError


@dataclass(frozen=True, slots=True)
class ActionInfo:
    """One bindable action of pitui."""

    id: str
    description: str
    default: tuple[str, ...]
    """Default keys (pi's where pi has the action); empty = unbound."""


ACTIONS: tuple[ActionInfo, ...] = (
    ActionInfo("interrupt", "Abort the agent / cancel", ("escape",)),
    ActionInfo("clear", "Clear editor (first) / exit (second)", ("ctrl+c",)),
    ActionInfo("exit", "Exit (when editor is empty)", ("ctrl+d",)),
    ActionInfo("cycleThinkingLevel", "Cycle thinking level", ("shift+tab",)),
    ActionInfo("selectModel", "Open model selector", ("ctrl+l",)),
    # pi binds Ctrl+P here; pitui's Ctrl+P is the command palette.
    ActionInfo("cycleModelForward", "Cycle models", ()),
    ActionInfo("cycleModelBackward", "Cycle models backward", ()),
    ActionInfo("expandTools", "Toggle tool output expansion", ("ctrl+o",)),
    ActionInfo("toggleThinking", "Toggle thinking block visibility", ("ctrl+t",)),
    ActionInfo("dequeue", "Restore queued messages", ("alt+up",)),
    ActionInfo("followUp", "Queue follow-up message", ("alt+enter",)),
    ActionInfo("submit", "Send message", ("enter",)),
    ActionInfo("newLine", "New line", ("shift+enter", "ctrl+j")),
    ActionInfo("newSession", "Start a new session", ()),
    ActionInfo("resume", "Resume a different session", ()),
    ActionInfo("commandPalette", "Open the command palette", ("ctrl+p",)),
    ActionInfo("toggleToolPane", "Show or hide the tool pane", ("f2",)),
    ActionInfo("tree", "Show and focus the branch tree", ("ctrl+b",)),
    ActionInfo("fork", "Fork from an earlier message", ()),
    ActionInfo("previousBranch", "Switch a message to its previous sibling branch", ("alt+left",)),
    ActionInfo("nextBranch", "Switch a message to its next sibling branch", ("alt+right",)),
    ActionInfo("hotkeys", "Show all keyboard shortcuts", ()),
    ActionInfo("contextInspector", "Show what the model sees (context inspector)", ()),
    ActionInfo("focusConversation", "Select items in the conversation", ("ctrl+up",)),
    ActionInfo("searchConversation", "Find in the conversation", ("ctrl+f",)),
    ActionInfo("quit", "Quit pitui", ("ctrl+q",)),
)
"""Every action pitui binds, in the order ``/hotkeys`` lists them."""

ACTION_IDS: frozenset[str] = frozenset(a.id for a in ACTIONS)

PI_ONLY_ACTIONS: frozenset[str] = frozenset(
    {
        # pi app actions pitui does not have (yet)
        "suspend", "toggleSessionNamedFilter", "externalEditor", "pasteImage",
        # pi editor actions
        "cursorUp", "cursorDown", "cursorLeft", "cursorRight", "cursorWordLeft",
        "cursorWordRight", "cursorLineStart", "cursorLineEnd", "jumpForward", "jumpBackward",
        "pageUp", "pageDown", "deleteCharBackward", "deleteCharForward", "deleteWordBackward",
        "deleteWordForward", "deleteToLineStart", "deleteToLineEnd", "tab", "selectUp",
        "selectDown", "selectPageUp", "selectPageDown", "selectConfirm", "selectCancel",
        "copy", "yank", "yankPop", "undo", "treeFoldOrUp", "treeUnfoldOrDown",
        "toggleSessionPath", "toggleSessionSort", "renameSession", "deleteSession",
        "deleteSessionNoninvasive",
    }
)  # fmt: skip
"""pi's action ids pitui accepts in the file but does not act on."""

MODIFIERS: tuple[str, ...] = ("alt", "ctrl", "shift")
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


@dataclass(frozen=True, slots=True)
class KeybindingProblem:
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

    keys: dict[str, tuple[str, ...]] = field(
        default_factory=lambda: {a.id: a.default for a in ACTIONS}
    )
    problems: list[KeybindingProblem] = field(default_factory=list)
    overridden: frozenset[str] = frozenset()
    """Actions whose keys came from the file."""

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


def parse_keybindings(data: object, source: str) -> Keybindings:
    """Apply decoded keybindings JSON over the defaults; never raises."""
    result = Keybindings()
    if not isinstance(data, dict):
        result.problems.append(KeybindingProblem(source, None, "must be a JSON object"))
        return result
    overridden: set[str] = set()
    for action, value in data.items():
        if action not in ACTION_IDS:
            if action not in PI_ONLY_ACTIONS:
                result.problems.append(KeybindingProblem(source, action, "unknown action"))
            continue
        keys = _parse_value(value, source, action, result.problems)
        if keys is not None:
            result.keys[action] = keys
            overridden.add(action)
    result.overridden = frozenset(overridden)
    return result


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


def parse_keybindings_text(text: str, source: str) -> Keybindings:
    """Parse the file's text (invalid JSON → defaults plus one problem)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        result = Keybindings()
        message = f"invalid JSON: {exc.msg} at line {exc.lineno}"
        result.problems.append(KeybindingProblem(source, None, message))
        return result
    return parse_keybindings(data, source)


async def load_keybindings(path: Path | None = None) -> Keybindings:
    """Read ``keybindings.json`` (default: in the pitui home); a missing file = defaults."""
    from pitui.ai.files import read_config_text  # lazy: imported before the first frame

    file = path or paths.keybindings_file()
    try:
        text = await read_config_text(file)
    except ConfigError as exc:
        result = Keybindings()
        result.problems.append(KeybindingProblem(str(file), None, str(exc)))
        return result
    if text is None:
        return Keybindings()
    return parse_keybindings_text(text, str(file))


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
