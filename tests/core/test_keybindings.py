"""keybindings.json parsing: pi's format, validation, defaults, pi 1.6's ids.

The parser is given its catalogue of actions (the UI's action table provides pitui's: see
tests/ui/test_action_table.py); here a small one with pi's defaults.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.keybindings import (
    InvalidKeyError,
    Keybindings,
    KeyCatalogue,
    display_key,
    load_keybindings,
    normalize_key,
    parse_keybindings,
    parse_keybindings_text,
)

CATALOGUE = KeyCatalogue(
    defaults={
        "selectModel": ("ctrl+l",),
        "expandTools": ("ctrl+o",),
        "toggleThinking": ("ctrl+t",),
        "dequeue": ("alt+up",),
        "newSession": (),
    },
    aliases={"app.model.select": "selectModel", "app.tools.expand": "expandTools"},
)
DEFAULTS = Keybindings.defaults(CATALOGUE).keys


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("ctrl+l", "ctrl+l"),
        ("shift+ctrl+P", "ctrl+shift+p"),
        ("ctrl+alt+]", "alt+ctrl+]"),
        ("pageUp", "pageup"),
        ("esc", "escape"),
        ("return", "enter"),
        ("ctrl++", "ctrl++"),
        ("f12", "f12"),
        ("super+k", "super+k"),
        ("ctrl+super+k", "ctrl+super+k"),
    ],
)
def test_normalize_key(key: str, expected: str) -> None:
    assert normalize_key(key) == expected


@pytest.mark.parametrize("key", ["", "ctrl+", "hyper+x", "ctrl+ctrl+x", "f13", "ctrl+enterr"])
def test_bad_keys(key: str) -> None:
    with pytest.raises(InvalidKeyError):
        normalize_key(key)


def test_display_key() -> None:
    assert display_key("ctrl+shift+p") == "Ctrl+Shift+P"
    assert display_key("pageup") == "PageUp"


def test_overrides_string_list_and_unbind() -> None:
    result = parse_keybindings(
        {"selectModel": "ctrl+k", "expandTools": ["ctrl+o", "F3"], "dequeue": []},
        "kb.json",
        CATALOGUE,
    )
    assert result.problems == []
    assert result.keys["selectModel"] == ("ctrl+k",)
    assert result.keys["expandTools"] == ("ctrl+o", "f3")
    assert result.keys["dequeue"] == ()
    assert result.keys["toggleThinking"] == ("ctrl+t",)
    assert result.overridden == {"selectModel", "expandTools", "dequeue"}


def test_pi_only_actions_are_accepted_silently() -> None:
    data = {
        "yank": "ctrl+y",
        "externalEditor": "ctrl+g",
        "$schema": "https://pi.dev/schemas/keybindings.schema.json",
        "tui.editor.cursorUp": "up",
        "app.session.togglePath": "ctrl+p",
    }
    result = parse_keybindings(data, "kb.json", CATALOGUE)
    assert result.problems == []
    assert result.unknown == ()
    assert result.keys == DEFAULTS


def test_pi16_ids_name_the_same_actions() -> None:
    result = parse_keybindings({"app.model.select": "f4", "app.tools.expand": []}, "kb", CATALOGUE)
    assert result.problems == []
    assert result.keys["selectModel"] == ("f4",)
    assert result.keys["expandTools"] == ()
    assert result.overridden == {"selectModel", "expandTools"}


def test_problems_name_file_and_action_and_rest_applies() -> None:
    data = {
        "selectModle": "ctrl+k",
        "selectModel": "ctrl+k",
        "expandTools": ["hyper+o", "f4"],
        "toggleThinking": 5,
        "dequeue": "nonsense",
    }
    result = parse_keybindings(data, "/h/keybindings.json", CATALOGUE)
    messages = [str(p) for p in result.problems]
    assert result.unknown == ("selectModle",)  # kept for the log, not a problem
    assert not any("selectModle" in m for m in messages)
    assert any("(expandTools): unknown modifier 'hyper'" in m for m in messages)
    assert any("(toggleThinking): expected a key or a list of keys" in m for m in messages)
    assert any("(dequeue): unknown key 'nonsense'" in m for m in messages)
    assert result.keys["selectModel"] == ("ctrl+k",)
    assert result.keys["expandTools"] == ("f4",)
    assert result.keys["toggleThinking"] == ("ctrl+t",)  # default kept
    assert result.keys["dequeue"] == ("alt+up",)


def test_not_an_object_and_bad_json() -> None:
    not_object = parse_keybindings([1], "kb.json", CATALOGUE)
    assert not_object.problems[0].message == "must be a JSON object"
    result = parse_keybindings_text("{nope", "kb.json", CATALOGUE)
    assert result.problems[0].message.startswith("invalid JSON")
    assert result.keys == DEFAULTS


def write_file(home: Path, data: object) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "keybindings.json").write_text(json.dumps(data))


async def test_load_from_home(pitui_home: Path) -> None:
    assert (await load_keybindings(CATALOGUE)).keys == DEFAULTS  # no file: defaults
    write_file(pitui_home, {"selectModel": "ctrl+k"})
    loaded = await load_keybindings(CATALOGUE)
    assert loaded.keys["selectModel"] == ("ctrl+k",)
