"""Slash commands typed in the composer, against a real AgentSession on the demo model."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable, Input

from pitui.ui.commands.dispatch import split_command
from pitui.ui.commands.model import exact_model_match
from pitui.ui.screens.hotkeys import HotkeysScreen
from pitui.ui.screens.session_panel import SessionPanel
from pitui.ui.view.events import AddNotice
from pitui.ui.view.session_panel import sections_text
from pitui.ui.widgets.status_bar import StatusBar
from tests.ui.command_support import (
    make_app,
    make_registry,
    make_session,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    submit,
    thinking_changes,
    wait_until,
)


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/model", ("model", "")),
        ("  /model  claude sonnet ", ("model", "claude sonnet")),
        ("/name Port work", ("name", "Port work")),
        ("/usr/bin/env is broken", None),
        ("/", None),
        ("hello /model", None),
    ],
)
def test_split_command(text: str, expected: tuple[str, str] | None) -> None:
    assert split_command(text) == expected


def test_exact_model_match() -> None:
    models = make_registry().all()
    found = exact_model_match("FAKECO/fake-1", models)
    assert found is not None and found.id == "fake-1"
    assert exact_model_match("fake-1", models) is found
    assert exact_model_match("fake", models) is None


async def test_unknown_command_is_a_notice(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/frobnicate now")
        assert notices(app)[-1] == "Unknown command: /frobnicate"
        assert not session.messages  # nothing went to the model


async def test_thinking(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/thinking high")
        assert session.thinking_level == "high"
        assert thinking_changes(session)[-1] == "high"
        assert notices(app)[-1] == "Thinking level: high"
        assert "high" in app.main.query_one(StatusBar).part("model")
        await submit(pilot, "/thinking")
        assert notices(app)[-1].startswith("Thinking level: high (available: off, minimal")
        await submit(pilot, "/thinking loud")
        assert notices(app)[-1].startswith('Invalid thinking level "loud"')
        await submit(pilot, "/model fakeco/fake-1")  # no reasoning
        await submit(pilot, "/thinking low")
        assert notices(app)[-1] == "Current model does not support thinking"


async def test_name(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/name")
        assert notices(app)[-1] == "Usage: /name <name>"
        await submit(pilot, "/name Port work")
        assert session.session_name == "Port work"
        assert notices(app)[-1] == "Session name set: Port work"
        location = app.main.query_one(StatusBar).part("location")
        assert location.endswith("• Port work")
        await submit(pilot, "/name")
        assert notices(app)[-1] == "Session name: Port work"


async def test_new_session(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "hello there")
        await wait_until(pilot, lambda: not session.is_streaming and session.messages, "a reply")
        old_file = session.session_file
        old_id = session.store.session_id
        await submit(pilot, "/new")
        await settle(pilot)
        assert session.store.session_id != old_id
        assert session.session_file != old_file
        assert session.messages == []
        assert notices(app) == ["✓ New session started"]


async def test_session_info_and_copy(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/copy")
        assert notices(app)[-1] == "No agent messages to copy yet."
        await submit(pilot, "hello there")
        await wait_until(pilot, lambda: not session.is_streaming and session.messages, "a reply")
        await settle(pilot)
        await submit(pilot, "/session")
        panel = app.screen
        assert isinstance(panel, SessionPanel)
        text = sections_text(panel.sections())
        rows = [line.split() for line in text.splitlines()]
        assert rows[0] == ["Session"]
        assert ["ID", session.store.session_id] in rows
        assert ["User", "1"] in rows and ["Assistant", "1"] in rows
        assert ["Tool", "calls", "0"] in rows and ["Total", "2"] in rows
        assert any(row[:1] == ["Input"] for row in rows)
        await app.apply([AddNotice("another notice")])  # the panel stays (it was a notice)
        await settle(pilot)
        assert app.screen is panel
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SessionPanel)
        await submit(pilot, "/copy")
        assert notices(app)[-1] == "Copied last agent message to clipboard"
        assert app.clipboard == session.last_assistant_text()
        assert app.clipboard


async def test_theme_switch_changes_variables(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.theme == "pi-dark"
        dark_bg = app.get_css_variables()["pi-userMessageBg"]
        await submit(pilot, "/theme light")
        assert app.theme == "pi-light"
        assert app.get_css_variables()["pi-userMessageBg"] != dark_bg
        assert notices(app)[-1] == "Theme: light"
        await submit(pilot, "/theme neon")
        assert notices(app)[-1] == 'Unknown theme "neon". Available: dark, light'
        assert app.theme == "pi-light"


async def test_theme_picker(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/theme")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette) and isinstance(app.focused, Input),
            "the theme picker's field",
        )
        shown = app.screen.query_one(CommandList)
        await wait_until(pilot, lambda: shown.option_count == 2, "both themes listed")
        lines = [str(shown.get_option_at_index(i).prompt) for i in range(2)]
        assert [line.splitlines() for line in lines] == [
            ["dark", "dark theme · current"],
            ["light", "light theme"],
        ]
        await pilot.press(*"light")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "pi-light", "the light theme")


async def test_hotkeys_lists_every_binding(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/hotkeys")
        await wait_until(pilot, lambda: isinstance(app.screen, HotkeysScreen), "hotkeys")
        table = app.screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert ["Ctrl+L", "selectModel", "Open model selector"] in rows
        assert ["Shift+Tab", "cycleThinkingLevel", "Cycle thinking level"] in rows
        assert ["(unbound)", "newSession", "Start a new session"] in rows
        assert ["Shift+Enter / Ctrl+J", "newLine", "New line"] in rows
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, HotkeysScreen)


async def test_quit(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/quit")
        await wait_until(pilot, lambda: app._exit, "the app to exit")
    assert app.return_code == 0


async def test_commands_work_without_a_session() -> None:
    from pitui.ui.app import PituiApp
    from pitui.ui.theme import discover_themes

    app = PituiApp(themes=discover_themes([]))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/theme light")
        assert app.theme == "pi-light"
        await submit(pilot, "/name x")
        assert notices(app)[-1] == "Error: No session is connected."
