"""``/theme NAME`` is saved to settings.json and the next start uses it (pi's setting)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.cli import build_parser
from pitui.ui.commands.theme import set_theme
from pitui.ui.launch import create_app
from tests.ui.harness import FeedSource, make_app, wait_subscribed


async def test_theme_light_survives_a_restart(pitui_home: Path, tmp_path: Path) -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        await set_theme(app, "light")
        await pilot.pause()
        assert app.theme == "pi-light"
    assert json.loads((pitui_home / "settings.json").read_text())["theme"] == "light"
    restarted = create_app(build_parser().parse_args([]), tmp_path)
    async with restarted.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert restarted.theme == "pi-light"


@pytest.fixture
def pair_setting(pitui_home: Path) -> Path:
    pitui_home.mkdir(parents=True, exist_ok=True)
    (pitui_home / "settings.json").write_text(json.dumps({"theme": "light/dark"}))
    return pitui_home


@pytest.mark.parametrize(("colorfgbg", "expected"), [("0;15", "pi-light"), ("15;0", "pi-dark")])
async def test_a_light_dark_pair_follows_the_terminal(
    pair_setting: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    colorfgbg: str,
    expected: str,
) -> None:
    monkeypatch.setenv("COLORFGBG", colorfgbg)
    app = create_app(build_parser().parse_args([]), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == expected
