"""The floor a Textual program pays: an app that draws one line (issue 26's anchor).

Run in a terminal (``bench/issue26.py`` starts it in tmux beside pitui and pi).
"""

from textual.app import App, ComposeResult
from textual.widgets import Static


class OneLine(App[None]):
    """One line of text, nothing else."""

    def compose(self) -> ComposeResult:
        yield Static("bench-model - thinking off")


if __name__ == "__main__":
    OneLine().run()
