"""Inside tmux without extended keys, modified Enter keys arrive as plain Enter: Alt+Enter
(queue a follow-up) becomes Enter (steer), Shift+Enter sends instead of a new line. pi
warns once at start-up and names the fix; so does pitui (:func:`tmux_keyboard_warning`).

The TUI asks as the process starts (:class:`EarlyTmuxQuery`, one ``tmux display``
started before Textual loads and read when the first screen is composed), so the warning
is in the first frame instead of arriving ~0.2 s later; the asynchronous query is the
fallback when that one has not answered in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess

_QUERY_TIMEOUT_S = 2.0


def warning_for(extended_keys: str | None, keys_format: str | None) -> str | None:
    """The warning for tmux's ``extended-keys`` and ``extended-keys-format`` values (None:
    nothing to say, or tmux could not be asked)."""
    if extended_keys is None:
        return None
    if extended_keys not in ("on", "always"):
        return (
            "tmux extended-keys is off: Alt+Enter (queue a follow-up) and Shift+Enter (new "
            "line) arrive as plain Enter. Add `set -g extended-keys on` to ~/.tmux.conf and "
            "restart tmux."
        )
    if keys_format == "xterm":
        return (
            "tmux extended-keys-format is xterm: pitui works best with csi-u. Add "
            "`set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
        )
    return None


_FORMAT = "#{extended-keys}|#{extended-keys-format}"
"""Both options in one ``tmux display`` (an option tmux does not have is empty)."""


def _parse(out: str) -> tuple[str | None, str | None]:
    keys, _, keys_format = out.strip().partition("|")
    return keys or None, keys_format or None


class EarlyTmuxQuery:
    """``tmux display`` started at once, without waiting: the answer is read later."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        if not os.environ.get("TMUX"):
            return
        try:
            self._process = subprocess.Popen(
                ["tmux", "display", "-p", _FORMAT],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            self._process = None

    @property
    def asked(self) -> bool:
        """Whether there is a tmux to ask (and it could be started)."""
        return self._process is not None

    def answer(self) -> tuple[bool, str | None]:
        """(answered, warning) without blocking: (False, None) while tmux has not said."""
        process = self._process
        if process is None:
            return True, None
        if process.poll() is None:
            return False, None
        out = process.stdout.read() if process.stdout is not None else ""
        if process.stdout is not None:
            process.stdout.close()
        self._process = None
        if process.returncode != 0:
            return True, None
        return True, warning_for(*_parse(out))

    def close(self) -> None:
        """Stop waiting for an answer (the asynchronous query takes over)."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            process.wait(timeout=0.1)
        if process.stdout is not None:
            process.stdout.close()


async def tmux_keyboard_warning() -> str | None:
    """The warning for the tmux this process runs in (None outside tmux)."""
    if not os.environ.get("TMUX"):
        return None
    out = await _display()
    return warning_for(*_parse(out)) if out is not None else None


async def _display() -> str | None:
    """``tmux display -p`` of both options (None when tmux cannot say, within two seconds)."""
    try:
        process = await asyncio.create_subprocess_exec(
            "tmux", "display", "-p", _FORMAT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    try:
        async with asyncio.timeout(_QUERY_TIMEOUT_S):
            out, _ = await process.communicate()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        return None
    return out.decode(errors="replace").strip() if process.returncode == 0 else None
