"""The item widgets' stylesheets, added to the app's once, when the first item mounts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

ITEM_STYLESHEETS = ("conversation.tcss", "tool_card.tcss")
"""App-level stylesheets of the item widgets, beside this module."""


def load_item_styles(app: App[Any]) -> None:
    """Add the item widgets' stylesheets to the app's, once, before the first item mounts.

    They are not in ``PituiApp.CSS_PATH``: parsing them is a cost of the first frame,
    which shows no items. Their rules style only item widgets (and the earlier-items
    marker), so no widget already on screen changes when they arrive.
    """
    for name in ITEM_STYLESHEETS:
        add_stylesheet(app, Path(__file__).with_name(name))


def add_stylesheet(app: App[Any], path: Path) -> None:
    """Add one stylesheet file to the app's, once, without re-parsing the others.

    Also for a screen's ``CSS_PATH`` file before the screen is pushed: Textual would
    otherwise re-parse and re-apply every stylesheet of the app when it first shows.
    """
    if not app.stylesheet.has_source(str(path)):
        # As Stylesheet.read stores a CSS_PATH file (user rules, no scope), but through
        # add_source, which also drops the cached selector map so the rules apply.
        css = path.read_text(encoding="utf-8")
        app.stylesheet.add_source(css, read_from=(str(path), ""))
        app.css_path.append(path)  # so that ``textual --dev`` reloads it too
