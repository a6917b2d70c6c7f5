"""Paths → the text and images pi sends for them (pi's ``processFileArguments``).

A text file becomes ``<file name="/abs/path">\\n<content>\\n</file>\\n``; an image becomes
an image block plus ``<file name="/abs/path"></file>\\n`` (holding pi's resize note when
it was scaled down); an empty file is skipped. pitui adds what pi leaves to chance: a
file over :data:`MAX_TEXT_BYTES`, a binary file, or (where the caller says so) a file
outside the project is not attached, and a note says why; a model without image input
is refused before anything is sent (:class:`AttachmentError`).
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Sequence
from pathlib import Path

import msgspec

from pitui.ai.types import ImageContent, Model
from pitui.core.tools.images import SNIFF_BYTES, dimension_note, resize_image, sniff_image_mime
from pitui.core.tools.path_utils import resolve_read_path
from pitui.errors import PituiError

MAX_TEXT_BYTES = 256 * 1024
"""A text file larger than this is not attached (the model can page it with ``read``)."""
MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024
"""An image file larger than this is not even decoded."""
BINARY_SNIFF_BYTES = 8192


class AttachmentError(PituiError):
    """The prompt cannot be sent with these attachments (nothing was sent)."""

    title = "Attachment"


class Attachments(msgspec.Struct):
    """What the files add to a prompt."""

    text: str = ""
    """The ``<file>`` blocks, to go before the typed text."""
    images: list[ImageContent] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)
    """One line per file that was not attached, for the user."""
    attached: list[Path] = msgspec.field(default_factory=list)


def _size_text(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{size / 1024:.0f} KB"


def _is_binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # a character cut by the sniff window is fine
    return False


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def model_accepts_images(model: Model | None) -> bool:
    """Whether ``model`` takes image input (no model: assume it does)."""
    return model is None or "image" in model.input


def refuse_images(model: Model | None, count: int) -> None:
    """Raise the refusal for ``count`` images when ``model`` takes no image input."""
    if count and model is not None and not model_accepts_images(model):
        noun = "an image" if count == 1 else f"{count} images"
        raise AttachmentError(
            f"{model.provider}/{model.id} does not accept images; this prompt carries "
            f"{noun}. Remove it, or pick a model that takes image input."
        )


async def attach_files(
    paths: Sequence[str],
    cwd: Path,
    *,
    model: Model | None = None,
    auto_resize: bool = True,
    project_only: bool = False,
) -> Attachments:
    """Attach each of ``paths`` once (relative ones against ``cwd``).

    ``project_only``: files outside ``cwd`` are not attached (typed text may come from
    a paste; the command line is the user's own word, so it passes False, as pi).

    Raises:
        AttachmentError: A file does not exist, or images go to a model without image input.
    """
    result = Attachments()
    root = (await asyncio.to_thread(_locate, ".", cwd))[1]
    seen: set[Path] = set()
    for raw in paths:
        path, real = await asyncio.to_thread(_locate, raw, cwd)
        if real in seen:
            continue
        seen.add(real)
        if project_only and not _inside(real, root):
            result.notes.append(f"{raw}: not attached, it is outside the project folder")
            continue
        await _attach_one(path, real, result, auto_resize)
    refuse_images(model, len(result.images))
    return result


def _locate(raw: str, cwd: Path) -> tuple[Path, Path]:
    """``(absolute path as named, real path)`` of ``raw`` (blocking: a few stats)."""
    path = Path(os.path.abspath(resolve_read_path(raw, cwd)))
    return path, Path(os.path.realpath(path))


async def _attach_one(path: Path, real: Path, result: Attachments, auto_resize: bool) -> None:
    try:
        size = (await asyncio.to_thread(os.stat, real)).st_size
        if not await asyncio.to_thread(os.path.isfile, real):
            raise AttachmentError(f"Not a file: {path}")
        read = await asyncio.to_thread(_read_for_attaching, real, size)
    except FileNotFoundError as exc:
        raise AttachmentError(f"File not found: {path}") from exc
    except OSError as exc:
        raise AttachmentError(f"Could not read file {path}: {exc.strerror or exc}") from exc
    if read is None:  # an empty file
        return
    if isinstance(read, str):
        _omit(result, path, read)
        return
    raw, mime = read
    result.attached.append(real)
    if mime is not None:
        await _attach_image(path, raw, mime, result, auto_resize)
        return
    content = raw.decode("utf-8", "replace").removeprefix("\ufeff")
    result.text += f'<file name="{path}">\n{content}\n</file>\n'


def _read_for_attaching(real: Path, size: int) -> tuple[bytes, str | None] | str | None:
    """The file's bytes and image type; or why it is not attached; or None when it is
    empty. Reads only the head of a file it turns down (blocking)."""
    with open(real, "rb") as handle:
        head = handle.read(max(SNIFF_BYTES, BINARY_SNIFF_BYTES))
        if size == 0:
            return None
        mime = sniff_image_mime(head[:SNIFF_BYTES])
        limit = MAX_IMAGE_FILE_BYTES if mime else MAX_TEXT_BYTES
        if size > limit:
            return f"{_size_text(size)} is over the {_size_text(limit)} limit"
        if mime is None and _is_binary(head):
            return "a binary file (not text or a supported image)"
        return head + handle.read(), mime


def _omit(result: Attachments, path: Path, why: str) -> None:
    result.notes.append(f"{path}: not attached, {why}")
    result.text += f'<file name="{path}">[File not attached: {why}.]</file>\n'


async def _attach_image(
    path: Path, raw: bytes, mime: str, result: Attachments, auto_resize: bool
) -> None:
    if auto_resize:
        image = await asyncio.to_thread(resize_image, raw, mime)
        data, mime, note = image.data, image.mime_type, dimension_note(image)
    else:
        data, note = base64.b64encode(raw).decode("ascii"), None
    result.images.append(ImageContent(data=data, mime_type=mime))
    result.text += f'<file name="{path}">{note or ""}</file>\n'
