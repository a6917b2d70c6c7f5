"""keybindings.json applied to the running app (Textual keymap + the composer's own keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.binding import Binding

from pitui.core.keybindings import parse_keybindings
from pitui.ui.app import PituiApp, PituiMainScreen
from pitui.ui.commands.actions import KEY_CATALOGUE
from pitui.ui.commands.keymap import UNBOUND, textual_keymap, to_textual_key
from pitui.ui.screens.hotkeys import HotkeysScreen
from pitui.ui.screens.models import ModelPicker
from pitui.ui.widgets.composer import Composer
from tests.ui.command_support import (
    make_app,
    make_session,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    wait_until,
)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("ctrl+l", "ctrl+l"),
        ("alt+ctrl+]", "alt+ctrl+right_square_bracket"),
        ("ctrl+-", "ctrl+minus"),
        ("pageup", "pageup"),
        ("ctrl+/", "ctrl+slash"),
        ("ctrl++", "ctrl+plus"),
        ("shift+tab", "shift+tab"),
    ],
)
def test_to_textual_key(key: str, expected: str) -> None:
    assert to_textual_key(key) == expected


def test_keymap_covers_textual_bindings_only() -> None:
    keymap = textual_keymap(
        parse_keybindings({"expandTools": ["ctrl+o", "f3"]}, "kb", KEY_CATALOGUE)
    )
    assert keymap["expandTools"] == "ctrl+o,f3"
    assert keymap["newSession"] == UNBOUND
    assert "submit" not in keymap and "followUp" not in keymap


def write_keybindings(home: Path, data: object) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "keybindings.json"
    path.write_text(json.dumps(data))
    return path


def opened(app: PituiApp, kind: type) -> bool:
    return any(isinstance(screen, kind) for screen in app.screen_stack)


async def test_override_applied(tmp_path: Path, pitui_home: Path) -> None:
    write_keybindings(pitui_home, {"selectModel": "f4", "hotkeys": "f5", "dequeue": []})
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.keys.keybindings.keys_for("selectModel") == ("f4",)
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert not opened(app, ModelPicker)  # the default key no longer opens it
        await pilot.press("f4")
        await wait_until(pilot, lambda: opened(app, ModelPicker), "the picker on f4")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("f5")  # unbound by default, bound by the file
        await wait_until(pilot, lambda: opened(app, HotkeysScreen), "hotkeys on f5")
        assert notices(app) == []


async def test_composer_keys_follow_the_file(tmp_path: Path, pitui_home: Path) -> None:
    write_keybindings(pitui_home, {"submit": "ctrl+s", "newLine": "enter"})
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        composer = app.main.query_one(Composer)
        await pilot.press("x", "enter", "y")
        assert composer.text == "x\ny"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert composer.text == ""
        assert composer.sent_history == ["x\ny"]


async def test_invalid_keybindings_reported_rest_applied(
    tmp_path: Path, pitui_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_keybindings(
        pitui_home,
        {"selectModle": "f4", "expandTools": "hyper+o", "selectModel": "f4"},
    )
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = notices(app)
        # An id nobody knows (a typo, a newer pi's) goes to the log, not the chat.
        assert not any("selectModle" in n for n in shown)
        assert "unknown action 'selectModle' ignored" in caplog.text
        assert f"Keybindings {path} (expandTools): unknown modifier 'hyper' in 'hyper+o'" in shown
        await pilot.press("f4")
        await wait_until(pilot, lambda: opened(app, ModelPicker), "the picker on f4")


async def test_invalid_json_reported(tmp_path: Path, pitui_home: Path) -> None:
    write_keybindings(pitui_home, None).write_text("{not json")
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert any(n.endswith("invalid JSON: Expecting property name enclosed in double "
                              "quotes at line 1") for n in notices(app))  # fmt: skip
        await pilot.press("ctrl+l")  # defaults still work
        await wait_until(pilot, lambda: opened(app, ModelPicker), "the picker on ctrl+l")


async def test_ctrl_c_clears_then_quits(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        composer = app.main.query_one(Composer)
        await pilot.press("h", "i")
        await pilot.press("ctrl+c")
        assert composer.text == ""
        assert not app._exit
        await pilot.pause(0.6)
        await pilot.press("ctrl+c")  # a lone press again only clears
        assert not app._exit
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app._exit, "the app to exit")


async def test_ctrl_d_deletes_or_exits_when_empty(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        composer = app.main.query_one(Composer)
        await pilot.press("a", "b", "home", "ctrl+d")
        assert composer.text == "b"  # the editor's delete-forward
        assert not app._exit
        await pilot.press("ctrl+d")
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: app._exit, "the app to exit")


async def test_cycle_model_bound_from_the_file(tmp_path: Path, pitui_home: Path) -> None:
    write_keybindings(pitui_home, {"cycleModelForward": "f9", "cycleModelBackward": "f10"})
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f9")
        await settle(pilot)
        assert session.model is not None and session.model.id == "fake-1"
        assert notices(app)[-1] == "Switched to Fake One"
        await pilot.press("f9")
        await settle(pilot)
        assert session.model is not None and session.model.id == "demo"
        await pilot.press("f10")
        await settle(pilot)
        assert session.model is not None and session.model.id == "fake-1"


async def test_app_key_wins_over_the_editor_binding(tmp_path: Path, pitui_home: Path) -> None:
    write_keybindings(pitui_home, {"selectModel": "ctrl+k"})  # the editor's kill-line key
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        composer = app.main.query_one(Composer)
        await pilot.press("a", "b", "home", "ctrl+k")
        await wait_until(pilot, lambda: opened(app, ModelPicker), "the picker on ctrl+k")
        assert composer.text == "ab"  # not killed


async def test_every_app_binding_has_an_id_and_quit_is_rebindable(
    tmp_path: Path, pitui_home: Path
) -> None:
    write_keybindings(pitui_home, {"quit": "f12"})
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for bindings in app._bindings.key_to_bindings.values():
            assert all(b.id for b in bindings), bindings
        screen_own = Binding.make_bindings(PituiMainScreen.__dict__["BINDINGS"])
        assert all(b.id for b in screen_own)  # Textual's Screen adds tab / shift+tab focus
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert not app._exit
        await pilot.press("f12")
        await wait_until(pilot, lambda: app._exit, "the app to exit on f12")
