"""The first screen's short list of what is loaded (context files, skills, templates, keys).

Shown once above the conversation, removed when the first prompt is sent (pi's start-up
listing; ``quietStartup`` hides it).
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class StartupListing(Static):
    """A few dim lines; the caller removes it after the first prompt."""

    DEFAULT_CSS = """
    StartupListing {
        height: auto;
        padding: 0 1;
        color: $pi-muted;
    }
    """

    def __init__(self, lines: list[str], *, id: str | None = None) -> None:
        super().__init__(Content("\n".join(lines)), id=id)
