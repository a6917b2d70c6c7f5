"""Command palette (Ctrl+P) and the composer's slash-command autocomplete."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input

from pitui.ui.commands.actions import ACTIONS
from pitui.ui.commands.dispatch import slash_commands
from pitui.ui.commands.palette import palette_entries
from pitui.ui.screens.hotkeys import HotkeysScreen
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.suggestions import SuggestionList
from tests.ui.command_support import (
    make_app,
    make_session,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
    thinking_changes,
    wait_until,
)
from tests.ui.harness import burst


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def open_palette(pilot: Pilot[None]) -> None:
    """Ctrl+P, then wait for the palette's search field to have the focus: keys typed
    before it has would go to the screen behind it (or nowhere)."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(
        pilot,
        lambda: isinstance(app.screen, CommandPalette) and isinstance(app.focused, Input),
        "the palette's field",
    )


async def test_palette_lists_every_command_and_action(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        entries = palette_entries(app)
        texts = {e.text for e in entries}
        for command in slash_commands():
            assert f"/{command.slash}" in texts
        helps = " ".join(e.help for e in entries)
        for action in ACTIONS:
            if action.scope in ("app", "screen") and action.id != "commandPalette":
                assert re.search(rf"id: (/\w+, )?{action.id}\b", helps), action.id
        assert "Ctrl+L  ·  id: /model, selectModel" in helps
        system = {c.title: c for c in app.get_system_commands(app.screen)}
        assert not {"Quit", "Keys", "Theme"} & set(system)  # pitui's own entries cover them
        theme = next(e for e in entries if e.text == "/theme")
        theme.run()  # pi themes only
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the themes")
        await settle(pilot)  # mounted before it is dismissed
        assert "themes" in str(app.screen.query_one(Input).placeholder)
        app.screen.dismiss()


async def test_palette_lists_each_action_once(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        entries = palette_entries(app)
        system = [c.title for c in app.get_system_commands(app.screen)]
        titles = [e.text for e in entries] + system
        assert len(titles) == len(set(titles))

        def lines_about(duty: str) -> list[str]:
            return [
                e.text for e in entries if duty in f"{e.text} {e.help.split('  ·  ')[0]}".lower()
            ] + [t for t in system if duty in t.lower()]

        assert lines_about("quit") == ["/quit"]
        assert lines_about("new session") == ["/new"]
        assert lines_about("keyboard shortcuts") == ["/hotkeys"]
        assert lines_about("theme") == ["/theme"]
        assert lines_about("select model") == ["/model"]
        quit_entry = next(e for e in entries if e.text == "/quit")
        assert quit_entry.help == "Quit pitui  ·  Ctrl+Q  ·  id: /quit, quit"


async def test_palette_opens_and_runs_a_command(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_palette(pilot)
        await pilot.press(*"/hotkeys")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HotkeysScreen), "hotkeys")


async def test_palette_runs_a_binding_action(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await open_palette(pilot)
        await pilot.press(*"show or hide the tool pane")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.has_class("-show-tools"), "the tool pane toggle")


async def test_autocomplete_command_names_then_arguments(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        suggestions = app.main.query_one(SuggestionList)
        composer = app.main.query_one(Composer)
        assert not suggestions.display
        await pilot.press("slash")
        assert suggestions.display
        assert len(suggestions.items) == len(slash_commands())
        await pilot.press(*"thi")
        assert suggestions.items[0].label == "/thinking [level]"
        await pilot.press("tab")
        assert composer.text == "/thinking "
        assert [s.label for s in suggestions.items][:2] == ["off", "minimal"]
        await pilot.press("down", "down", "down", "down")  # off → … → high
        assert suggestions.selected is not None and suggestions.selected.label == "high"
        await pilot.press("enter")  # completes and sends
        await settle(pilot)
        assert composer.text == ""
        assert not suggestions.display
        assert session.thinking_level == "high"
        assert thinking_changes(session)[-1] == "high"


async def test_enter_in_a_burst_acts_on_the_text_as_typed_not_an_older_list(
    tmp_path: Path,
) -> None:
    """The list for ``/`` (``/model`` first) is up; ``hotkeys`` and Enter come in one
    burst, ahead of the list's refresh: Enter runs ``/hotkeys``, not ``/model``; a text
    no command matches is sent as typed."""
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        suggestions = app.main.query_one(SuggestionList)
        await pilot.press("slash")
        assert suggestions.items[0].label == "/model [search]"
        burst(app, *"hotkeys", "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, type(app.main)), "a screen")
        assert isinstance(app.screen, HotkeysScreen)
        await pilot.press("escape")
        await pilot.press("slash")
        assert suggestions.items[0].label == "/model [search]"
        burst(app, *"zzz", "enter")
        unknown = "Unknown command: /zzz"
        await wait_until(
            pilot, lambda: unknown in [getattr(i, "text", "") for i in app.chat.items], unknown
        )
        assert len(app.screen_stack) == 1 and app.main.query_one(Composer).text == ""
        assert not suggestions.display


async def test_keys_typed_before_the_list_appears_act_on_its_suggestions(
    tmp_path: Path,
) -> None:
    """A burst that starts the command and presses Enter, Tab, ↓ or Esc before the list
    has appeared at all: the key acts on the suggestions for the text typed (pi: Enter on
    a command prefix takes the highlighted command), never on an empty list."""
    from pitui.ui.screens.models import ModelPicker

    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        suggestions = app.main.query_one(SuggestionList)
        composer = app.main.query_one(Composer)
        burst(app, *"/mo", "enter")  # /model, not "Unknown command: /mo"
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        await pilot.press("escape")
        await settle(pilot)
        assert composer.text == ""
        burst(app, *"/thi", "tab")
        await wait_until(pilot, lambda: composer.text == "/thinking ", "the completion")
        composer.clear()
        await settle(pilot)
        burst(app, *"/hot", "down", "up", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HotkeysScreen), "hotkeys")
        await pilot.press("escape")
        await settle(pilot)
        burst(app, *"/mo", "escape")  # closes the list; its late refresh must not reopen it
        await settle(pilot)
        assert composer.text == "/mo" and not suggestions.display
        burst(app, "enter")  # the list was closed: the text as typed
        unknown = "Unknown command: /mo"
        await wait_until(
            pilot, lambda: unknown in [getattr(i, "text", "") for i in app.chat.items], unknown
        )


async def test_autocomplete_escape_and_plain_text(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        suggestions = app.main.query_one(SuggestionList)
        composer = app.main.query_one(Composer)
        await pilot.press("slash", "m", "o")
        assert suggestions.display and suggestions.items[0].label == "/model [search]"
        await pilot.press("escape")
        assert not suggestions.display
        assert composer.text == "/mo"
        composer.load_text("hello")
        await pilot.pause()
        assert not suggestions.display
        composer.load_text("/zzzz")
        await pilot.pause()
        assert not suggestions.display  # nothing matches


async def test_keys_typed_after_a_commands_enter_reach_the_screen_it_opens(
    tmp_path: Path,
) -> None:
    """``/model``, Enter and a search in one burst: the search is the picker's, not a
    draft left in the composer behind it."""
    from textual.widgets import Input

    from pitui.ui.screens.models import ModelPicker

    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, *"/model", "enter", *"demo")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        picker = app.screen
        await wait_until(pilot, lambda: picker.query_one(Input).value == "demo", "the search")
        assert app.main.query_one(Composer).text == ""
        await pilot.press("escape")
        await settle(pilot)
