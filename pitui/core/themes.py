"""pi theme files (PI_SPEC §9.9): loading, validation, discovery. No Textual here.

A pi theme is JSON: ``name``, optional ``appearance`` (``dark``/``light``), optional
``vars`` (reusable colours), ``colors`` (all 51 tokens; pi 1.6's optional ones too) and
optional ``export``. A colour is ``"#rgb"``/``"#rrggbb"``, ``oklch(…)``, ``okhsl(…)``
(:mod:`pitui.core.theme_colors`), a 256-colour index, the name of a var (resolved
recursively) or ``""`` for the terminal default. The ``theme`` setting names one theme
or a ``light/dark`` pair (the terminal's appearance picks), as pi 1.6's does. The TUI
maps a theme onto Textual (:mod:`pitui.ui.theme`); the HTML export colours its page.

A broken file is reported as a :class:`ThemeProblem` (file + token) and skipped; loading
never raises for bad data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pitui import paths
from pitui.core.theme_colors import FUNCTION_PREFIX, parse_color
from pitui.records import Record

THEME_TOKENS: tuple[str, ...] = (
    "accent",
    "border",
    "borderAccent",
    "borderMuted",
    "success",
    "error",
    "warning",
    "muted",
    "dim",
    "text",
    "thinkingText",
    "selectedBg",
    "userMessageBg",
    "userMessageText",
    "customMessageBg",
    "customMessageText",
    "customMessageLabel",
    "toolPendingBg",
    "toolSuccessBg",
    "toolErrorBg",
    "toolTitle",
    "toolOutput",
    "mdHeading",
    "mdLink",
    "mdLinkUrl",
    "mdCode",
    "mdCodeBlock",
    "mdCodeBlockBorder",
    "mdQuote",
    "mdQuoteBorder",
    "mdHr",
    "mdListBullet",
    "toolDiffAdded",
    "toolDiffRemoved",
    "toolDiffContext",
    "syntaxComment",
    "syntaxKeyword",
    "syntaxFunction",
    "syntaxVariable",
    "syntaxString",
    "syntaxNumber",
    "syntaxType",
    "syntaxOperator",
    "syntaxPunctuation",
    "thinkingOff",
    "thinkingMinimal",
    "thinkingLow",
    "thinkingMedium",
    "thinkingHigh",
    "thinkingXhigh",
    "bashMode",
)
"""The 51 colour tokens every pi theme must define."""

OPTIONAL_TOKENS: dict[str, str] = {
    "scrollbarTrack": "muted",
    "scrollbarThumb": "text",
    "searchMatchBg": "selectedBg",
    "searchMatchText": "text",
    "thinkingMax": "thinkingXhigh",
}
"""pi 1.6's optional tokens and the token each falls back to."""
SYSTEM_THEME = "system"
"""pi 1.6's terminal-derived theme: here the built-in dark or light one, by appearance."""

VARIABLE_PREFIX = "pi-"
"""Prefix of the TUI's names for themes and token variables."""
DEFAULT_COLORS = {  # what "" (terminal default) becomes where Textual needs a real colour
    True: {"background": "#18181e", "surface": "#1e1e24", "foreground": "#d4d4d4"},
    False: {"background": "#f8f8f8", "surface": "#ffffff", "foreground": "#1e1e1e"},
}


class ThemeFileError(ValueError):
    """A theme file that cannot be used; ``token`` names the offending entry if any."""

    def __init__(self, message: str, token: str | None = None) -> None:
        super().__init__(message)
        self.token = token


class ThemeProblem(Record):
    """Why one theme file was skipped."""

    source: str
    token: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.source} ({self.token})" if self.token else self.source
        return f"Theme {where}: {self.message}"


class PiTheme(Record):
    """A validated pi theme: every token resolved to ``#rrggbb`` or ``""`` (default)."""

    name: str
    colors: Mapping[str, str]
    export: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    appearance: str | None = None
    """``dark`` or ``light`` when the file says so."""

    @property
    def dark(self) -> bool:
        """Whether the theme is meant for a dark background (its ``appearance``, else judged
        from its backgrounds)."""
        if self.appearance in ("dark", "light"):
            return self.appearance == "dark"
        probe = self.export.get("pageBg") or self.colors.get("userMessageBg") or ""
        return not probe or luminance(probe) < 0.5

    @property
    def textual_name(self) -> str:
        """The name registered with Textual (prefixed so it never shadows a Textual theme)."""
        return f"{VARIABLE_PREFIX}{self.name}"

    def color(self, token: str) -> str:
        """The colour of ``token`` with ``""`` replaced by a concrete default."""
        value = self.colors.get(token, "")
        if value:
            return value
        defaults = DEFAULT_COLORS[self.dark]
        return defaults["background"] if token.endswith("Bg") else defaults["foreground"]


@dataclass
class ThemeCatalog:
    """All themes found, by name, and the files that were skipped."""

    themes: dict[str, PiTheme] = field(default_factory=dict)
    problems: list[ThemeProblem] = field(default_factory=list)


# --------------------------------------------------------------------------- parsing


def color256_to_hex(index: int) -> str:
    """The xterm-256 palette colour ``index`` as ``#rrggbb``."""
    basic = [
        "000000",
        "800000",
        "008000",
        "808000",
        "000080",
        "800080",
        "008080",
        "c0c0c0",
        "808080",
        "ff0000",
        "00ff00",
        "ffff00",
        "0000ff",
        "ff00ff",
        "00ffff",
        "ffffff",
    ]
    if index < 16:
        return f"#{basic[index]}"
    if index < 232:
        steps = (0, 95, 135, 175, 215, 255)
        n = index - 16
        r, g, b = steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    level = 8 + (index - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


def _resolve(
    value: object, variables: Mapping[str, object], token: str, seen: tuple[str, ...]
) -> str:
    if isinstance(value, bool):  # bool is an int subclass; never a colour
        raise ThemeFileError(f"invalid colour {value!r}", token)
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ThemeFileError(f"colour index {value} is outside 0-255", token)
        return color256_to_hex(value)
    if not isinstance(value, str):
        raise ThemeFileError(f"invalid colour {value!r}", token)
    if value == "":
        return ""
    if value.startswith("#") or FUNCTION_PREFIX.match(value):
        try:
            return parse_color(value)
        except ValueError as exc:
            raise ThemeFileError(str(exc), token) from exc
    if value in seen:
        raise ThemeFileError(f"circular variable reference {' -> '.join((*seen, value))}", token)
    if value not in variables:
        raise ThemeFileError(f"unknown variable {value!r}", token)
    return _resolve(variables[value], variables, token, (*seen, value))


def parse_theme(data: object, source: str = "") -> PiTheme:
    """Validate decoded theme JSON.

    Raises:
        ThemeFileError: the data is not a usable pi theme.
    """
    if not isinstance(data, dict):
        raise ThemeFileError("theme must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError("missing or empty 'name'", "name")
    if "/" in name or name == SYSTEM_THEME:
        raise ThemeFileError(f"the name {name!r} is reserved (no '/', not 'system')", "name")
    appearance = data.get("appearance")
    if appearance is not None and appearance not in ("dark", "light"):
        raise ThemeFileError('\'appearance\' must be "dark" or "light"', "appearance")
    variables = data.get("vars", {})
    colors = data.get("colors")
    if not isinstance(variables, dict):
        raise ThemeFileError("'vars' must be an object", "vars")
    if not isinstance(colors, dict):
        raise ThemeFileError("missing 'colors' object", "colors")
    missing = [t for t in THEME_TOKENS if t not in colors]
    if missing:
        raise ThemeFileError(f"missing colour token(s): {', '.join(missing)}", missing[0])
    resolved = {t: _resolve(colors[t], variables, t, ()) for t in THEME_TOKENS}
    for token, fallback in OPTIONAL_TOKENS.items():
        given = colors.get(token)
        resolved[token] = (
            resolved[fallback] if given is None else _resolve(given, variables, token, ())
        )
    export_raw = data.get("export", {})
    export: dict[str, str] = {}
    if isinstance(export_raw, dict):
        for key, value in export_raw.items():
            export[key] = _resolve(value, variables, f"export.{key}", ())
    return PiTheme(name=name, colors=resolved, export=export, source=source, appearance=appearance)


def load_theme_text(text: str, source: str) -> PiTheme:
    """Parse theme JSON text. Raises :class:`ThemeFileError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ThemeFileError(f"invalid JSON: {exc.msg} at line {exc.lineno}") from exc
    return parse_theme(data, source)


# --------------------------------------------------------------------------- discovery


def builtin_theme_texts() -> list[tuple[str, str]]:
    """``(source, json text)`` of the built-in themes shipped with pitui.

    A wheel carries them as ``pitui/_themes``; an editable install reads the repo's
    ``themes/`` directory next to the package.
    """
    package_dir = Path(__file__).resolve().parents[1]
    # Plain directories first: importlib.resources imports zipfile & co. (~5 ms), which
    # only a zipped install needs.
    installed = package_dir / "_themes"
    if installed.is_dir():
        files = sorted(installed.glob("*.json"))
        return [(f"pitui/_themes/{p.name}", p.read_text("utf-8")) for p in files]
    repo_dir = package_dir.parent / "themes"
    if repo_dir.is_dir():
        return [(str(p), p.read_text("utf-8")) for p in sorted(repo_dir.glob("*.json"))]
    import importlib.resources

    packaged = importlib.resources.files("pitui") / "_themes"
    if not packaged.is_dir():
        return []
    entries = [e for e in packaged.iterdir() if e.name.endswith(".json")]
    entries.sort(key=lambda e: e.name)
    return [(f"pitui/_themes/{e.name}", e.read_text("utf-8")) for e in entries]


def user_theme_dirs() -> list[Path]:
    """Where user themes live: pi's own theme dir first, then pitui's (which wins)."""
    return [paths.pi_themes_dir(), paths.themes_dir()]


def discover_themes(extra_dirs: Iterable[Path] | None = None) -> ThemeCatalog:
    """Load the built-in themes and every ``*.json`` in the user theme dirs.

    Later sources override earlier ones by name. Bad files land in ``problems``.
    """
    catalog = ThemeCatalog()
    sources = list(builtin_theme_texts())
    for directory in user_theme_dirs() if extra_dirs is None else list(extra_dirs):
        if directory.is_dir():
            for file in sorted(directory.glob("*.json")):
                try:
                    sources.append((str(file), file.read_text("utf-8")))
                except (OSError, UnicodeDecodeError) as exc:
                    catalog.problems.append(ThemeProblem(str(file), None, str(exc)))
    for source, text in sources:
        try:
            theme = load_theme_text(text, source)
        except ThemeFileError as exc:
            catalog.problems.append(ThemeProblem(source, exc.token, str(exc)))
            continue
        catalog.themes[theme.name] = theme
    return catalog


def luminance(hex_color: str) -> float:
    """Relative brightness of ``#rrggbb``, 0 (black) to 1 (white)."""
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def terminal_is_dark(environ: Mapping[str, str] | None = None) -> bool:
    """The terminal's appearance from ``COLORFGBG`` (``fg;bg``), else dark, as pi falls back."""
    value = (os.environ if environ is None else environ).get("COLORFGBG", "")
    background = value.rsplit(";", 1)[-1]
    if not background.isdigit():
        return True
    return int(background) in (0, 1, 2, 3, 4, 5, 6, 8)


def theme_name_for(setting: str | None, *, dark_terminal: bool | None = None) -> str:
    """The theme a ``theme`` setting means now: ``light/dark`` picks by the terminal's
    appearance, ``system`` (pi 1.6's default) is the built-in one for it."""
    dark = terminal_is_dark() if dark_terminal is None else dark_terminal
    value = (setting or "").strip()
    if "/" in value:
        light_name, _, dark_name = value.partition("/")
        return (dark_name if dark else light_name).strip() or ("dark" if dark else "light")
    if not value or value == SYSTEM_THEME:
        return "dark" if dark else "light"
    return value


def resolve_theme(name: str | None, catalog: ThemeCatalog | None = None) -> PiTheme | None:
    """The theme a ``theme`` setting or ``/theme`` argument ``name`` means (default
    ``dark``; pairs and ``system`` as :func:`theme_name_for` says) from ``catalog``
    (default: every theme found on disk), falling back to ``dark``; None only when no
    theme loads at all."""
    found = catalog if catalog is not None else discover_themes()
    wanted = theme_name_for(name) if name else "dark"
    return found.themes.get(wanted) or found.themes.get("dark")
