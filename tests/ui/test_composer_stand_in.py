"""The first frame's composer stand-in looks exactly like the empty composer that replaces
it (screen line by line, cell by cell: border, padding, cursor, colours), so the screen does
not change when the real one is mounted; and keys typed before that reach it in order."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.strip import Strip

from pitui.ui.app import PituiApp
from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.composer_parts import STAND_IN_ID, ComposerStandIn
from tests.ui.harness import INFO, FeedSource, burst, make_app, ready


async def _not_yet(self: PituiApp) -> None:
    """Stands in for the app's after-first-frame step: the stand-in stays until the test
    mounts the real composer itself."""


def _screen(app: PituiApp) -> list[Strip]:
    return app.screen._compositor.render_strips()


async def _both_looks(
    app: PituiApp, size: tuple[int, int], setup: Any = None
) -> tuple[list[list[Strip]], list[list[Strip]]]:
    """The screen focused and blurred, with the stand-in and then with the composer."""
    looks: tuple[list[list[Strip]], list[list[Strip]]] = ([], [])
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if setup is not None:
            setup(app)
        await pilot.pause()
        main = app.main
        focused: object = main.focused
        assert focused is main.query_one(ComposerStandIn)  # focused from the start
        for index in (0, 1):
            if index == 1:
                await main.mount_composer()
                main.composer.cursor_blink = False  # the look of the blink's "on" half
                assert not main.query(f"#{STAND_IN_ID}")
                focused = main.focused
                assert focused is main.composer
            await pilot.pause()
            looks[index].append(_screen(app))
            main.focus_now(main.conversation)
            await pilot.pause()
            looks[index].append(_screen(app))
            main.focus_now(main.query_one(f"#composer, #{STAND_IN_ID}"))
            await pilot.pause()
    return looks


def _dark(app: PituiApp) -> None:
    app.theme = "pi-dark"


def _light(app: PituiApp) -> None:
    app.theme = "pi-light"


def _ansi(app: PituiApp) -> None:
    """The terminal's own palette (the :ansi styles), as a terminal that asks for it."""


@pytest.mark.parametrize(
    ("setup", "size", "info"),
    [
        (_dark, (120, 36), INFO),  # a model with a thinking level: the level's border
        (_light, (80, 24), SessionInfo(cwd="/srv/proj")),  # no model: the plain border
        (_ansi, (100, 30), INFO),
    ],
    ids=["dark-wide", "light-narrow-no-model", "ansi"],
)
async def test_the_stand_in_looks_like_the_empty_composer(
    monkeypatch: pytest.MonkeyPatch, setup: Any, size: tuple[int, int], info: SessionInfo
) -> None:
    monkeypatch.setattr(PituiApp, "_after_first_frame", _not_yet)
    app = make_app(FeedSource(), info)
    if setup is _ansi:
        app.set_reactive(App.ansi_color, True)
    stand_in, composer = await _both_looks(app, size, setup)
    assert stand_in == composer


async def test_keys_and_a_paste_typed_before_the_composer_arrive_in_order() -> None:
    """A fast typist (or a paste) right at start: the keys wait for the real composer and
    reach it in the order typed, none lost."""
    from textual import events

    app = make_app(FeedSource())
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.main.query(ComposerStandIn)  # the real composer is not mounted yet
        burst(app, *"fix ", "backspace")
        driver = app._driver
        assert driver is not None
        driver.send_message(events.Paste("the port"))
        burst(app, " ", "t", "o", " ", "8", "0", "left", "9")
        await ready(pilot)
        await pilot.pause()
        composer = app.main.query_one(Composer)
        assert composer.text == "fixthe port to 890"
        assert composer.cursor_location == (0, 17)
        assert app.focused is composer
