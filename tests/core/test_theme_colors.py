"""pi 1.6's colour syntaxes (values checked against pi 1.6's own conversion)."""

from __future__ import annotations

import pytest

from pitui.core.theme_colors import parse_color

PI16 = {  # what pi 1.6 (pi-tui's parseColor → colorToHex) makes of each value
    "okhsl(234 3% 89%)": "#dee0e1",
    "okhsl(295 50% 67%)": "#a798d7",
    "okhsl(20 72% 67%)": "#ea7f81",
    "okhsl(83 88% 67%)": "#cd9a22",
    "okhsl(233 41% 24%)": "#213b49",
    "okhsl(0 100% 50%)": "#d70071",
    "okhsl(120 100% 90%)": "#d1f600",
    "okhsl(250 0% 50%)": "#777777",
    "okhsl(60 95% 10%)": "#251000",
    "okhsl(337 81% 61%)": "#de54c1",
    "okhsl(200deg 0.5 0.5)": "#448386",
    "oklch(62% 0.1 200)": "#1c989e",
    "oklch(100% 0.3 150)": "#ffffff",
    "oklch(0.5 0.4 30)": "#bb0c00",
    "#0af": "#00aaff",
    "#00AAFF": "#00aaff",
}


@pytest.mark.parametrize(("value", "expected"), PI16.items())
def test_colours_convert_as_pi_16_converts_them(value: str, expected: str) -> None:
    assert parse_color(value) == expected


@pytest.mark.parametrize(
    "value", ["okhsl(10 120% 50%)", "oklch(150% 0.1 20)", "okhsl(1 2)", "#12345", "rgb(1,2,3)"]
)
def test_invalid_colours_are_refused(value: str) -> None:
    with pytest.raises(ValueError):
        parse_color(value)
