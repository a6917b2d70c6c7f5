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

    host.push_screen(theme_picker(theme_names(host), chosen))


async def set_theme(host: UiHost, name: str) -> None:
    """Switch theme by pi name, with a notice either way."""
    if host.switch_theme(name):
        await host.notice(f"Theme: {name}")
    else:
        known = ", ".join(theme_names(host))
        await host.notice(f'Unknown theme "{name}". Available: {known}', "warning")


def theme_names(host: UiHost, _arg: str = "") -> list[str]:
    """The pi themes found at start-up, sorted (``/theme``'s argument completions)."""
    return sorted(host.themes.themes)
