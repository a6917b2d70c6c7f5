"""pi themes → Textual themes: every token becomes a theme variable ``pi-<token>``.

Theme data (files, validation, discovery) lives in :mod:`pitui.core.themes`; this module
only maps it onto Textual, so ``.tcss`` files can say ``$pi-toolPendingBg``.
"""

from __future__ import annotations

from textual.theme import Theme

from pitui.core.themes import (
    DEFAULT_COLORS,
    THEME_TOKENS,
    VARIABLE_PREFIX,
    PiTheme,
    ThemeCatalog,
    ThemeFileError,
    ThemeProblem,
    builtin_theme_texts,
    color256_to_hex,
    discover_themes,
    load_theme_text,
    parse_theme,
)

__all__ = [
    "THEME_TOKENS",
    "PiTheme",
    "ThemeCatalog",
    "ThemeFileError",
    "ThemeProblem",
    "builtin_theme_texts",
    "color256_to_hex",
    "discover_themes",
    "fallback_variables",
    "load_theme_text",
    "parse_theme",
    "theme_variables",
    "to_textual_theme",
]


def theme_variables(theme: PiTheme) -> dict[str, str]:
    """``pi-<token>`` → concrete colour, for every token."""
    return {f"{VARIABLE_PREFIX}{t}": theme.color(t) for t in THEME_TOKENS}


def to_textual_theme(theme: PiTheme) -> Theme:
    """Map a pi theme onto Textual's semantic colours plus one variable per pi token."""
    defaults = DEFAULT_COLORS[theme.dark]
    background = theme.export.get("pageBg") or defaults["background"]
    surface = theme.export.get("cardBg") or defaults["surface"]
    return Theme(
        name=theme.textual_name,
        primary=theme.color("accent"),
        secondary=theme.color("border"),
        accent=theme.color("borderAccent"),
        warning=theme.color("warning"),
        error=theme.color("error"),
        success=theme.color("success"),
        foreground=theme.colors["text"] or defaults["foreground"],
        background=background,
        surface=surface,
        panel=theme.color("selectedBg"),
        dark=theme.dark,
        variables=theme_variables(theme),
    )


def fallback_variables() -> dict[str, str]:
    """Variable defaults so stylesheets parse even under a non-pi Textual theme."""
    return {f"{VARIABLE_PREFIX}{t}": "#808080" for t in THEME_TOKENS}
