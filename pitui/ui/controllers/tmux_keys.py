"""Inside tmux without extended keys, modified Enter keys arrive as plain Enter: Alt+Enter
(queue a follow-up) becomes Enter (steer), Shift+Enter sends instead of a new line. pi
warns once at start-up and names the fix; so does pitui (:func:`tmux_keyboard_warning`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os

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


async def tmux_keyboard_warning() -> str | None:
    """The warning for the tmux this process runs in (None outside tmux)."""
    if not os.environ.get("TMUX"):
        return None
    keys, keys_format = await asyncio.gather(_show("extended-keys"), _show("extended-keys-format"))
    return warning_for(keys, keys_format)


async def _show(option: str) -> str | None:
    """``tmux show -gv OPTION`` (None when tmux cannot say, within two seconds)."""
    try:
        process = await asyncio.create_subprocess_exec(
            "tmux", "show", "-gv", option,
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
