"""The theme picker (``/theme`` without a name): a command palette over theme names.

Textual builds a palette's providers itself, from classes; the names are bound into a
provider class made for this picker. Each name's line under it says what the theme is
(dark or light, and whether it is the one shown now), not the name again. Picking a name
calls ``chosen`` with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider


def theme_picker(names: Sequence[tuple[str, str]], chosen: Callable[[str], None]) -> CommandPalette:
    """A palette listing ``(name, description)`` pairs; picking one calls ``chosen(name)``."""

    class ThemeNames(Provider):
        """The discovered pi themes."""

        def _pick(self, name: str) -> Callable[[], None]:
            return lambda: chosen(name)

        async def discover(self) -> Hits:
            for name, description in names:
                yield DiscoveryHit(name, self._pick(name), help=description)

        async def search(self, query: str) -> Hits:
            matcher = self.matcher(query)
            for name, description in names:
                score = matcher.match(name)
                if score > 0:
                    yield Hit(score, matcher.highlight(name), self._pick(name), name, description)

    return CommandPalette(providers=[ThemeNames], placeholder="Search themes…")
