"""pi 1.6 theme files load unchanged; the theme choice is saved and read back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pitui.core.settings import save_theme_choice
from pitui.core.themes import (
    THEME_TOKENS,
    discover_themes,
    parse_theme,
    resolve_theme,
    terminal_is_dark,
    theme_name_for,
)
from pitui.ui.launch import peek_theme
from tests.pi16 import KNOWN_INSTALL

PI16_THEMES = (
    KNOWN_INSTALL / "node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme"
)


def pi16_style_theme(name: str = "dusk") -> dict[str, Any]:
    """A theme written the way pi 1.6's built-ins are: OKHSL vars, optional tokens, export."""
    colors: dict[str, Any] = {token: "fg" for token in THEME_TOKENS}
    colors.update(
        accent="okhsl(295 50% 67%)",
        selectedBg="bg",
        userMessageBg="bg",
        text="",
        muted="oklch(70% 0.02 250)",
        dim=244,
        border="#0af",
        scrollbarThumb="fg",
        thinkingMax="okhsl(20 99% 63%)",
    )
    return {
        "$schema": "https://pi.dev/schemas/theme.schema.json",
        "name": name,
        "appearance": "dark",
        "vars": {"fg": "okhsl(234 3% 89%)", "bg": "okhsl(233 41% 24%)"},
        "colors": colors,
        "export": {"pageBg": "okhsl(262 14% 16%)", "cardBg": "bg"},
    }


def test_a_pi16_theme_with_okhsl_loads_without_a_warning(tmp_path: Path) -> None:
    (tmp_path / "dusk.json").write_text(json.dumps(pi16_style_theme()))
    catalog = discover_themes([tmp_path])
    assert catalog.problems == []
    theme = catalog.themes["dusk"]
    assert theme.colors["accent"] == "#a798d7"
    assert theme.colors["text"] == ""  # the terminal's default
    assert theme.colors["border"] == "#00aaff"
    assert theme.colors["selectedBg"] == "#213b49"
    assert theme.colors["searchMatchBg"] == theme.colors["selectedBg"]  # pi's fallback
    assert theme.dark


def test_pi16_s_own_theme_files_load_when_installed() -> None:
    if not PI16_THEMES.is_dir():
        pytest.skip("pi 1.6 is not installed (tests/pi16.py)")
    catalog = discover_themes([PI16_THEMES])
    assert catalog.problems == []
    assert catalog.themes["light"].dark is False and catalog.themes["dark"].dark is True


def test_reserved_names_are_refused() -> None:
    for name in ("system", "a/b"):
        with pytest.raises(ValueError, match="reserved"):
            parse_theme(pi16_style_theme(name))


def test_light_dark_pairs_and_system() -> None:
    assert theme_name_for("light/dark", dark_terminal=True) == "dark"
    assert theme_name_for("light/dark", dark_terminal=False) == "light"
    assert theme_name_for("system", dark_terminal=False) == "light"
    assert theme_name_for("solarized", dark_terminal=False) == "solarized"
    assert terminal_is_dark({"COLORFGBG": "15;0"}) and not terminal_is_dark({"COLORFGBG": "0;15"})
    assert terminal_is_dark({})


def test_a_pair_setting_resolves_to_a_theme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORFGBG", "0;15")
    theme = resolve_theme("light/dark")
    assert theme is not None and theme.name == "light"


def test_the_theme_choice_is_saved_and_read_at_start(pitui_home: Path, tmp_path: Path) -> None:
    pitui_home.mkdir(parents=True, exist_ok=True)
    (pitui_home / "settings.json").write_text(json.dumps({"defaultModel": "x"}))
    assert asyncio.run(save_theme_choice("light")) is None
    saved = json.loads((pitui_home / "settings.json").read_text())
    assert saved == {"defaultModel": "x", "theme": "light"}
    assert peek_theme(tmp_path) == "light"
