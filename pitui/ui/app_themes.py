"""The pi themes in the app: installed before Textual parses any CSS, switched by name.

A job of its own beside :class:`~pitui.ui.app.PituiApp`'s others: the theme must be in
place before the first stylesheet parse (a later ``theme`` change re-parses every
stylesheet), and Textual's own default theme is never worked out at all.
"""

from __future__ import annotations

from textual.app import App

from pitui.core.themes import theme_name_for
from pitui.ui.theme import ThemeCatalog, fallback_variables, to_textual_theme


class PiThemedApp(App[None]):
    """An app whose themes are the pi themes of a :class:`ThemeCatalog`."""

    _catalog: ThemeCatalog | None = None
    """The themes found at start-up (None: the built-in ones)."""
    _theme_name: str = "dark"
    """The theme asked for (settings or ``--theme``)."""

    @property
    def themes(self) -> ThemeCatalog:
        """The pi themes found at start-up."""
        return self._catalog if self._catalog is not None else ThemeCatalog()

    def switch_theme(self, name: str) -> bool:
        """Switch to the pi theme called ``name`` (or a ``light/dark`` pair); False if
        there is no such theme."""
        wanted = theme_name_for(name)
        theme = self._catalog.themes.get(wanted) if self._catalog is not None else None
        if theme is None:
            return False
        self.theme = theme.textual_name
        return True

    _theme_installed = False
    """The pi theme is chosen (see :meth:`_install_themes`)."""

    def get_css_variables(self) -> dict[str, str]:
        # Textual's App.__init__ makes its stylesheet with the variables of its own default
        # theme (~300 colours worked out); ours replaces them before anything is parsed.
        if not self._theme_installed:
            return {}
        return super().get_css_variables()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return fallback_variables()

    def _install_themes(self) -> list[str]:
        """Register the pi themes and make the chosen one current, before the stylesheet is
        first parsed: setting ``theme`` later re-parses every stylesheet (~25 ms) and drops
        the parse cache, so the first screen's widget CSS is parsed from scratch again."""
        catalog = self._catalog if self._catalog is not None else ThemeCatalog()
        for theme in catalog.themes.values():
            self.register_theme(to_textual_theme(theme))
        warnings = [str(p) for p in catalog.problems]
        chosen = catalog.themes.get(theme_name_for(self._theme_name))
        self._theme_installed = True
        if chosen is not None:
            self._set_initial_theme(chosen.textual_name, dark=chosen.dark)
        else:  # Textual's default theme stays
            self.stylesheet.set_variables(self.get_css_variables())
            if catalog.themes:
                warnings.append(f"Unknown theme {self._theme_name!r}")
        return warnings

    def _set_initial_theme(self, name: str, *, dark: bool) -> None:
        """What ``App._watch_theme`` does, without scheduling a CSS re-parse (nothing has
        been parsed yet: the stylesheet is built once, with these variables)."""
        self.set_reactive(App.theme, name)
        self.stylesheet.set_variables(self.get_css_variables())
        stale = {c: False for c in self.classes if c.startswith("-theme-")}
        classes = {**stale, f"-theme-{name}": True, "-dark-mode": dark, "-light-mode": not dark}
        self.update_classes(classes, update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
