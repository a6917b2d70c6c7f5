"""The hold a sibling-switch key takes (its flow opens Restore files after some work)
ends wherever the key ends: back at the app (its binding ran), or in a widget that
stopped it (a user binding on a key the composer takes too): the keys typed after it
are never kept waiting for the hold's 1 s limit."""

from __future__ import annotations

from pathlib import Path

from pitui.core.keybindings import parse_keybindings
from pitui.ui.commands.actions import KEY_CATALOGUE
from pitui.ui.widgets.composer import Composer
from tests.ui.command_support import make_app, make_session, settle
from tests.ui.harness import ready


async def test_a_key_the_composer_stops_lets_the_keys_after_it_go(tmp_path: Path) -> None:
    # The composer binds Ctrl+W itself, so it runs the user's nextBranch there and stops
    # the key (pi: the user's app key wins): the key never comes back to the app.
    keybindings = parse_keybindings({"nextBranch": "ctrl+w"}, "keybindings.json", KEY_CATALOGUE)
    session = await make_session(tmp_path)
    app = make_app(session, keybindings)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot)
        await settle(pilot)
        await pilot.press(*"one two", "ctrl+w")
        assert not app.key_gate.holding  # not for HOLD_AT_MOST_S
        await pilot.press(*" three")
        assert app.query_one(Composer).text == "one two three"


async def test_the_binding_still_holds_the_keys_until_it_ran(tmp_path: Path) -> None:
    """Alt+→ on the composer (it does not take the key): the binding runs at the app."""
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot)
        await settle(pilot)
        await pilot.press("alt+right", *"abc")
        await settle(pilot)
        assert app.query_one(Composer).text == "abc"
        assert not app.key_gate.holding
