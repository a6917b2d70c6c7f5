"""The UI tests run Textual as the TUI does: with pitui/ui/subclassing.py's faster widget
class creation installed (pitui.cli installs it before the TUI loads)."""

from pitui.ui.subclassing import install

install()
