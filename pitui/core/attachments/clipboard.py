"""An image from the system clipboard (pi's ``pasteImage``), read with wl-paste or xclip.

Wayland sessions use ``wl-paste``, X11 ones ``xclip``; whichever is installed is tried
(Wayland first when ``WAYLAND_DISPLAY`` is set). When neither is, the error names the
one to install. The bytes are checked to be a supported image (png, jpeg, gif, webp).
"""

from __future__ import annotations

import asyncio
import os
import shutil

from pitui.core.tools.images import sniff_image_mime
from pitui.errors import PituiError

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
READ_TIMEOUT_S = 5.0


class ClipboardError(PituiError):
    """No image could be read from the clipboard (the reason says why)."""

    title = "Clipboard"


async def _output(*args: str) -> bytes | None:
    try:
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), READ_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None
    return out if proc.returncode == 0 else None


def _tools() -> list[tuple[str, str]]:
    """``(name, path)`` of the clipboard readers installed, preferred first."""
    wayland = bool(os.environ.get("WAYLAND_DISPLAY"))
    order = ("wl-paste", "xclip") if wayland else ("xclip", "wl-paste")
    return [(name, path) for name in order if (path := shutil.which(name))]


async def _read_with(name: str, path: str) -> bytes | None:
    if name == "wl-paste":
        listed = await _output(path, "--list-types")
        kinds = listed.decode("utf-8", "replace").split() if listed else []
        kind = next((k for k in IMAGE_TYPES if k in kinds), None)
        return await _output(path, "--no-newline", "--type", kind) if kind else None
    listed = await _output(path, "-selection", "clipboard", "-t", "TARGETS", "-o")
    kinds = listed.decode("utf-8", "replace").split() if listed else []
    kind = next((k for k in IMAGE_TYPES if k in kinds), None)
    return await _output(path, "-selection", "clipboard", "-t", kind, "-o") if kind else None


async def read_clipboard_image() -> tuple[bytes, str]:
    """``(image bytes, MIME type)`` of the clipboard's image.

    Raises:
        ClipboardError: No reader is installed, or the clipboard holds no image.
    """
    tools = _tools()
    if not tools:
        wayland = bool(os.environ.get("WAYLAND_DISPLAY"))
        missing = "wl-paste (package wl-clipboard)" if wayland else "xclip"
        raise ClipboardError(f"Pasting an image needs {missing}, which is not installed.")
    for name, path in tools:
        data = await _read_with(name, path)
        mime = sniff_image_mime(data[:4100]) if data else None
        if data and mime:
            return data, mime
    raise ClipboardError("The clipboard holds no image (png, jpeg, gif or webp).")
