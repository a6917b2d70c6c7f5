"""Keys typed while pitui starts arrive as the keys they are.

Until Textual's driver puts the terminal in raw mode (~0.2 s into a start), the line
discipline is still cooked: it echoes what is typed onto the shell's screen, holds it until
a newline, and turns Return into a line feed, which Textual then reads as Ctrl+J, a new
line in the composer. A fast typist's ``prompt⏎`` at launch would not be sent. So the TUI
takes the terminal out of canonical mode, echo and CR-to-NL translation first thing,
before it imports Textual; the keys wait in the terminal's buffer, unchanged, for the
driver to read them.

The terminal's own settings are kept: the driver is given them as the ones to restore
(:func:`hand_to_driver`: at exit, on Ctrl+Z and around an external editor), and they are
restored at interpreter exit too, for a start that ends before the driver ran. No Textual
here: it runs before Textual is loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
from typing import Any

_original: list[Any] | None = None
"""The terminal's settings as pitui found them (None: not a terminal, or left alone)."""


def take_keys_early() -> None:
    """Stop cooking stdin's terminal now (if it is one); restore it at exit."""
    global _original
    try:
        import termios
    except ImportError:  # not a POSIX terminal API
        return
    try:
        fd = sys.stdin.fileno()
        if not sys.stdin.isatty():
            return
        found = termios.tcgetattr(fd)
        raw = termios.tcgetattr(fd)
        raw[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: no line buffer, no echo
        raw[0] &= ~termios.ICRNL  # iflag: Return stays Return
        termios.tcsetattr(fd, termios.TCSANOW, raw)
    except (OSError, ValueError, termios.error):
        return
    _original = found
    atexit.register(_restore, fd, found)


def _restore(fd: int, attributes: list[Any]) -> None:
    import termios

    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(fd, termios.TCSANOW, attributes)


def hand_to_driver(driver: object) -> None:
    """Make ``driver`` restore the terminal's own settings, not the ones set here (a
    Textual Linux driver keeps what it found when it started in ``attrs_before``)."""
    if _original is not None and getattr(driver, "attrs_before", None) is not None:
        driver.attrs_before = list(_original)  # type: ignore[attr-defined]
