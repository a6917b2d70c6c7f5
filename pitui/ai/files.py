"""Reading the user's JSON config files (models.json, auth.json, settings, keybindings).

Every reader of a config file meets the same faults: the file is missing (normal: the
defaults apply), it is a directory or cannot be opened, or it is not UTF-8. This module
turns the last two into one :class:`ConfigError` naming the file and the cause, so no
loader lets an ``OSError`` or ``UnicodeDecodeError`` escape as a traceback.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pitui.errors import ConfigError


async def read_config_text(path: Path) -> str | None:
    """The text of ``path``; None when it does not exist.

    Raises:
        ConfigError: ``path`` exists but cannot be read as UTF-8 text.
    """
    try:
        data = await asyncio.to_thread(_read_bytes, path)  # one trip to a thread, not three
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return decode_config(data, path)


def _read_bytes(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def decode_config(data: bytes, path: Path | str) -> str:
    """``data`` as UTF-8 (a leading BOM dropped), or a :class:`ConfigError` saying where not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} on line {line}); "
            "save it as UTF-8"
        ) from None
