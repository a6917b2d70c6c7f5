"""pi theme files: loading, validation, mapping onto Textual."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.ui.theme import (
    THEME_TOKENS,
    ThemeFileError,
    builtin_theme_texts,
    color256_to_hex,
    discover_themes,
    load_theme_text,
    parse_theme,
    to_textual_theme,
)


def builtin(name: str) -> dict[str, Any]:
    for source, text in builtin_theme_texts():
        if source.endswith(f"{name}.json"):
            data: dict[str, Any] = json.loads(text)
            return data
    raise AssertionError(name)


def test_builtins_have_all_51_tokens() -> None:
    assert len(THEME_TOKENS) == 51 == len(set(THEME_TOKENS))
    for name in ("dark", "light"):
        data = builtin(name)
        assert set(data["colors"]) == set(THEME_TOKENS)
        theme = parse_theme(data)
        assert theme.name == name
    dark = parse_theme(builtin("dark"))
    assert dark.colors["border"] == "#5f87ff"  # via var "blue"
    assert dark.colors["text"] == ""  # terminal default
    assert dark.dark and not parse_theme(builtin("light")).dark


def test_textual_mapping_has_variable_per_token() -> None:
    theme = parse_theme(builtin("dark"))
    textual = to_textual_theme(theme)
    assert textual.name == "pi-dark"
    assert textual.error == "#cc6666" and textual.success == "#b5bd68"
    assert textual.background == "#18181e"
    assert set(textual.variables) == {f"pi-{t}" for t in THEME_TOKENS}
    assert textual.variables["pi-toolSuccessBg"] == "#283228"
    assert all(v.startswith("#") for v in textual.variables.values())


def test_256_colour_index_and_var_chain() -> None:
    data = builtin("dark")
    data["vars"] = {**data["vars"], "a": "b", "b": 196}
    data["colors"]["accent"] = "a"
    data["colors"]["muted"] = 244
    theme = parse_theme(data)
    assert theme.colors["accent"] == "#ff0000"
    assert theme.colors["muted"] == color256_to_hex(244) == "#808080"
    assert color256_to_hex(0) == "#000000" and color256_to_hex(21) == "#0000ff"


@pytest.mark.parametrize(
    ("mutate", "token", "fragment"),
    [
        (lambda d: d["colors"].__setitem__("accent", "nope"), "accent", "unknown variable"),
        (lambda d: d["colors"].__setitem__("error", "#12345"), "error", "invalid hex"),
        (lambda d: d["colors"].__setitem__("dim", 300), "dim", "outside 0-255"),
        (lambda d: d["colors"].pop("bashMode"), "bashMode", "missing colour token"),
        (
            lambda d: d["vars"].update(x="y", y="x") or d["colors"].update(dim="x"),
            "dim",
            "circular",
        ),
        (lambda d: d.pop("name"), "name", "name"),
    ],
)
def test_malformed_theme_reports_token(mutate: Any, token: str, fragment: str) -> None:
    data = builtin("dark")
    mutate(data)
    with pytest.raises(ThemeFileError) as info:
        parse_theme(data, "bad.json")
    assert info.value.token == token
    assert fragment in str(info.value)


def test_bad_json_is_reported() -> None:
    with pytest.raises(ThemeFileError, match="invalid JSON"):
        load_theme_text("{not json", "x.json")


def test_discovery_skips_bad_files_and_loads_user_themes(tmp_path: Path) -> None:
    pitui_dir = paths.themes_dir()
    pitui_dir.mkdir(parents=True)
    good = builtin("dark")
    good["name"] = "mine"
    (pitui_dir / "mine.json").write_text(json.dumps(good))
    (pitui_dir / "broken.json").write_text("{oops")
    bad = builtin("light")
    bad["name"] = "badcolour"
    bad["colors"]["warning"] = "#zzzzzz"
    (pitui_dir / "badcolour.json").write_text(json.dumps(bad))
    pi_dir = tmp_path / "pi-themes"
    pi_dir.mkdir()
    unchanged = builtin("light")
    unchanged["name"] = "from-pi"
    unchanged["$schema"] = "https://example.invalid/theme-schema.json"
    (pi_dir / "p.json").write_text(json.dumps(unchanged, indent="\t"))

    catalog = discover_themes([pi_dir, pitui_dir])
    assert {"dark", "light", "mine", "from-pi"} <= set(catalog.themes)
    problems = {Path(p.source).name: p for p in catalog.problems}
    assert set(problems) == {"broken.json", "badcolour.json"}
    assert problems["badcolour.json"].token == "warning"
    assert "badcolour.json (warning)" in str(problems["badcolour.json"])


def test_default_user_dirs_are_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    catalog = discover_themes()
    assert {"dark", "light"} <= set(catalog.themes)
    assert catalog.problems == []
