"""keybindings.json parsing: pi's format, validation, defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.keybindings import (
    ACTIONS,
    InvalidKeyError,
    Keybindings,
    display_key,
    load_keybindings,
    normalize_key,
    parse_keybindings,
    parse_keybindings_text,
)


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


def test_defaults_are_pi_defaults() -> None:
    keys = Keybindings().keys
    assert keys["selectModel"] == ("ctrl+l",)
    assert keys["cycleThinkingLevel"] == ("shift+tab",)
    assert keys["interrupt"] == ("escape",)
    assert keys["followUp"] == ("alt+enter",)
    assert keys["newSession"] == ()
    assert keys["clear"] == ("ctrl+c",)
    assert keys["exit"] == ("ctrl+d",)
    assert keys["cycleModelForward"] == ()  # pi's Ctrl+P is pitui's command palette
    assert len({a.id for a in ACTIONS}) == len(ACTIONS)
    for action in ACTIONS:  # every default is a valid key id, already canonical
        assert all(normalize_key(k) == k for k in action.default)


def test_overrides_string_list_and_unbind() -> None:
    result = parse_keybindings(
        {"selectModel": "ctrl+k", "expandTools": ["ctrl+o", "F3"], "dequeue": []}, "kb.json"
    )
    assert result.problems == []
    assert result.keys["selectModel"] == ("ctrl+k",)
    assert result.keys["expandTools"] == ("ctrl+o", "f3")
    assert result.keys["dequeue"] == ()
    assert result.keys["toggleThinking"] == ("ctrl+t",)
    assert result.overridden == {"selectModel", "expandTools", "dequeue"}


def test_pi_only_actions_are_accepted_silently() -> None:
    result = parse_keybindings({"yank": "ctrl+y", "externalEditor": "ctrl+g"}, "kb.json")
    assert result.problems == []
    assert result.keys == Keybindings().keys


def test_problems_name_file_and_action_and_rest_applies() -> None:
    data = {
        "selectModle": "ctrl+k",
        "selectModel": "ctrl+k",
        "expandTools": ["hyper+o", "f4"],
        "toggleThinking": 5,
        "dequeue": "nonsense",
    }
    result = parse_keybindings(data, "/h/keybindings.json")
    messages = [str(p) for p in result.problems]
    assert "Keybindings /h/keybindings.json (selectModle): unknown action" in messages
    assert any("(expandTools): unknown modifier 'hyper'" in m for m in messages)
    assert any("(toggleThinking): expected a key or a list of keys" in m for m in messages)
    assert any("(dequeue): unknown key 'nonsense'" in m for m in messages)
    assert result.keys["selectModel"] == ("ctrl+k",)
    assert result.keys["expandTools"] == ("f4",)
    assert result.keys["toggleThinking"] == ("ctrl+t",)  # default kept
    assert result.keys["dequeue"] == ("alt+up",)


def test_not_an_object_and_bad_json() -> None:
    assert parse_keybindings([1], "kb.json").problems[0].message == "must be a JSON object"
    result = parse_keybindings_text("{nope", "kb.json")
    assert result.problems[0].message.startswith("invalid JSON")
    assert result.keys == Keybindings().keys


def write_file(home: Path, data: object) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "keybindings.json").write_text(json.dumps(data))


async def test_load_from_home(pitui_home: Path) -> None:
    assert (await load_keybindings()).keys == Keybindings().keys  # no file: defaults
    write_file(pitui_home, {"selectModel": "ctrl+k"})
    loaded = await load_keybindings()
    assert loaded.keys["selectModel"] == ("ctrl+k",)
