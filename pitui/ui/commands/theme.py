"""``/theme [name]`` and the theme picker (a command palette over the pi themes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.host import UiHost


async def theme(host: UiHost, arg: str) -> None:
    """``/theme [name]``: switch, or pick from the discovered themes."""
    if arg:
        await set_theme(host, arg)
        return
    from pitui.ui.screens.theme_picker import theme_picker  # a palette: loaded when used

    def chosen(name: str) -> None:
        host.run_worker(set_theme(host, name))

    host.push_screen(theme_picker(theme_choices(host), chosen))


async def set_theme(host: UiHost, name: str) -> None:
    """Switch theme by pi name (or a ``light/dark`` pair) and save it to settings.json,
    as pi does, with a notice either way."""
    if host.switch_theme(name):
        from pitui.core.settings import save_theme_choice

        problem = await save_theme_choice(name)
        saved = "" if problem is None else f" (not saved: {problem})"
        await host.notice(f"Theme: {name}{saved}", "info" if problem is None else "warning")
    else:
        known = ", ".join(theme_names(host))
        await host.notice(f'Unknown theme "{name}". Available: {known}', "warning")


def theme_names(host: UiHost, _arg: str = "") -> list[str]:
    """The pi themes found at start-up, sorted (``/theme``'s argument completions)."""
    return sorted(host.themes.themes)


def theme_choices(host: UiHost) -> list[tuple[str, str]]:
    """Each theme's name with what the picker says under it: dark or light, and which
    one is shown now."""
    choices = []
    for name in theme_names(host):
        theme = host.themes.themes[name]
        described = "dark theme" if theme.dark else "light theme"
        if theme.textual_name == host.theme:
            described += " · current"
        choices.append((name, described))
    return choices
