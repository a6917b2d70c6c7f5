"""The one action table: every view of it (bindings, palette, slash commands, /hotkeys)
shows the same actions with the same keys, and pi's keybindings files name them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding

from pitui.core.keybindings import normalize_key, parse_keybindings
from pitui.ui.app import PituiApp, PituiMainScreen
from pitui.ui.commands.actions import (
    ACTIONS,
    BY_ID,
    KEY_CATALOGUE,
    default_keybindings,
    hotkey_rows,
    keys_text,
)
from pitui.ui.commands.dispatch import complete, slash_commands
from pitui.ui.commands.keymap import action_string, key_set, textual_keymap, textual_keys
from pitui.ui.commands.palette import palette_entries
from pitui.ui.widgets.composer import Composer
from tests.ui.command_support import make_app, make_session, settle

PI16_EXAMPLE = {  # pi 1.6's docs/keybindings.md, as a user would copy it
    "$schema": "https://pi.dev/schemas/keybindings.schema.json",
    "app.session.new": "ctrl+shift+n",
    "app.session.tree": ["ctrl+shift+t", "alt+shift+t"],
    "tui.altScreen.pageUp": [],
    "app.model.select": "f4",
    "app.tools.expand": ["ctrl+o", "f3"],
    "tui.input.newLine": ["shift+enter", "ctrl+j"],
}


def test_ids_are_unique_and_defaults_are_pi_defaults() -> None:
    assert len(BY_ID) == len(ACTIONS)
    assert len({a.slash for a in ACTIONS if a.slash}) == len(slash_commands())
    keys = default_keybindings().keys
    assert keys["selectModel"] == ("ctrl+l",)
    assert keys["cycleThinkingLevel"] == ("shift+tab",)
    assert keys["interrupt"] == ("escape",)
    assert keys["followUp"] == ("alt+enter",)
    assert keys["newSession"] == ()
    assert keys["clear"] == ("ctrl+c",)
    assert keys["exit"] == ("ctrl+d",)
    assert keys["cycleModelForward"] == ()  # pi's Ctrl+P is pitui's command palette
    for action in ACTIONS:  # every default is a valid key id, already canonical
        assert all(normalize_key(k) == k for k in action.keys), action.id
        assert action.handler is not None or action.scope == "editor", action.id
        assert action.bindable or not action.keys, action.id


def test_pi16_files_load_without_a_warning() -> None:
    loaded = parse_keybindings(PI16_EXAMPLE, "keybindings.json", KEY_CATALOGUE)
    assert loaded.problems == [] and loaded.unknown == ()
    assert loaded.keys["newSession"] == ("ctrl+shift+n",)
    assert loaded.keys["tree"] == ("ctrl+shift+t", "alt+shift+t")
    assert loaded.keys["selectModel"] == ("f4",)
    assert loaded.keys["expandTools"] == ("ctrl+o", "f3")


def _bindings_by_id() -> dict[str, Binding]:
    own = [*PituiApp.__dict__["BINDINGS"], *PituiMainScreen.__dict__["BINDINGS"]]
    return {b.id: b for b in Binding.make_bindings(own) if b.id}


def test_every_key_action_is_bound_once_with_its_keys() -> None:
    bound = _bindings_by_id()
    for action in ACTIONS:
        if action.scope in ("app", "screen"):
            binding = bound[action.id]
            assert binding.key == textual_keys(action.keys)
            assert binding.action in (action_string(action.id), action.textual_action)
        else:
            assert action.id not in bound


async def test_every_view_shows_every_action_with_the_same_keys(tmp_path: Path) -> None:
    keybindings = parse_keybindings(PI16_EXAMPLE, "keybindings.json", KEY_CATALOGUE)
    session = await make_session(tmp_path)
    app = make_app(session, keybindings)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        keymap = textual_keymap(app.keys.keybindings)
        helps = {e.text: e.help for e in palette_entries(app)}
        hotkeys = {row[2]: row[0] for row in hotkey_rows(app.keys.keybindings)}
        completions = {s.value.strip() for s in complete(app, "/")}
        composer = app.main.query_one(Composer)
        for action in ACTIONS:
            shown = keys_text(keybindings, action.id, "(unbound)")
            if action.bindable:  # /hotkeys: every bindable action, its keys
                assert hotkeys[action.id] == shown, action.id
            if action.scope in ("app", "screen"):  # Textual: the same keys
                assert keymap[action.id] == textual_keys(keybindings.keys_for(action.id))
            if action.scope == "editor":  # the composer reads them itself
                own = {"submit": composer.submit_keys, "newLine": composer.newline_keys}
                own["followUp"] = composer.follow_up_keys
                own["externalEditor"] = composer.external_editor_keys
                own["pasteImage"] = composer.paste_image_keys
                assert own[action.id] == key_set(keybindings, action.id)
            if action.slash:  # completion and the palette list the command
                assert f"/{action.slash}" in completions
                assert f"/{action.slash}" in helps
                if action.bindable and keybindings.keys_for(action.id):
                    assert keys_text(keybindings, action.id) in helps[f"/{action.slash}"]
            elif action.palette and action.scope in ("app", "screen"):
                help_text = helps[action.description]
                assert f"id: {action.id}" in help_text
                assert help_text.startswith(keys_text(keybindings, action.id))
        assert "F4" in helps["/model"] and hotkeys["selectModel"] == "F4"


@pytest.mark.parametrize("name", sorted(a.slash for a in ACTIONS if a.slash))
def test_each_slash_command_dispatches_through_the_table(name: str) -> None:
    action = next(a for a in slash_commands() if a.slash == name)
    assert action.handler is not None


def test_hotkeys_list_the_branches_panes_own_keys() -> None:
    """Shift+D (the files at an entry) is a capital letter: plain ``d`` types into the
    pane's search, so /hotkeys must say so, as the pane's hint does."""
    from pitui.ui.widgets.branch_tree import PANE_HINTS

    fixed = {keys: text for keys, text, _ in hotkey_rows(default_keybindings())}
    assert "differ from the working tree" in fixed["Shift+D"]
    assert "⇧D files" in PANE_HINTS
