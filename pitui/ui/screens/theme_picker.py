"""The theme picker (``/theme`` without a name): a command palette over theme names.

Textual builds a palette's providers itself, from classes; the names are bound into a
provider class made for this picker. Picking a name calls ``chosen`` with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider


def theme_picker(names: Sequence[str], chosen: Callable[[str], None]) -> CommandPalette:
    """A palette listing ``names``; picking one calls ``chosen(name)``."""

    class ThemeNames(Provider):
        """The discovered pi themes."""

        def _pick(self, name: str) -> Callable[[], None]:
            return lambda: chosen(name)

        async def discover(self) -> Hits:
            for name in names:
                yield DiscoveryHit(name, self._pick(name), help=f"theme: {name}")

        async def search(self, query: str) -> Hits:
            matcher = self.matcher(query)
            for name in names:
                score = matcher.match(name)
                if score > 0:
                    yield Hit(score, matcher.highlight(name), self._pick(name), name)

    return CommandPalette(providers=[ThemeNames], placeholder="Search themes…")
