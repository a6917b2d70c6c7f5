"""What the composer does besides editing: the ``@`` file finder, Tab path completion,
the external editor (Ctrl+G) and images (Ctrl+V, a pasted image path).

Kept apart from :mod:`pitui.ui.widgets.composer` so the editor stays small; each
function takes the composer and works on its text at the cursor.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from pitui.core.attachments.file_index import ProjectFileIndex
from pitui.core.attachments.images import PendingImage, pending_image
from pitui.core.attachments.path_completion import complete_path
from pitui.core.external_editor import NO_EDITOR, edit_text, editor_command
from pitui.core.tools.images import SNIFF_BYTES, sniff_image_mime
from pitui.ui.widgets.suggestions import Suggestion


class Composer(Protocol):
    """What these tools need of :class:`pitui.ui.widgets.composer.Composer` (a protocol,
    so this module does not import the composer that imports it)."""

    file_index: ProjectFileIndex | None
    project_root: Path | None
    external_editor: str | None
    images: list[PendingImage]

    @property
    def text(self) -> str: ...
    @property
    def cursor_location(self) -> tuple[int, int]: ...
    @property
    def app(self) -> Any: ...
    @property
    def document(self) -> Any: ...
    def replace(self, insert: str, start: tuple[int, int], end: tuple[int, int]) -> Any: ...
    def move_cursor(self, location: tuple[int, int]) -> None: ...
    def load_text(self, text: str) -> None: ...
    def add_image(self, image: PendingImage) -> None: ...
    def show_suggestions(self, items: Sequence[Suggestion]) -> None: ...
    def refresh_suggestions(self) -> None: ...


FINDER_LIMIT = 8
INDEX_FRESH_S = 30.0
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
_AT_WORD = re.compile(r'(?:^|(?<=\s))@("?)([^\s"]*)$')


def offset_of(text: str, location: tuple[int, int]) -> int:
    """The offset into ``text`` of a ``(row, column)`` location."""
    row, column = location
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:row]) + column


def location_of(text: str, offset: int) -> tuple[int, int]:
    """The ``(row, column)`` of an offset into ``text``."""
    head = text[:offset]
    row = head.count("\n")
    return row, len(head) - (head.rfind("\n") + 1)


def cursor_offset(composer: Composer) -> int:
    """The cursor as an offset into the composer's text."""
    return offset_of(composer.text, composer.cursor_location)


def replace_range(composer: Composer, start: int, end: int, text: str) -> None:
    """Replace ``start:end`` of the text with ``text`` and put the cursor after it."""
    current = composer.text
    result = composer.replace(text, location_of(current, start), location_of(current, end))
    composer.move_cursor(result.end_location)


def at_query(text: str, offset: int) -> tuple[int, str] | None:
    """``(start of the @ word, what follows the @)`` when the cursor ends an ``@`` word."""
    match = _AT_WORD.search(text[:offset])
    return (match.start(), match[2]) if match else None


def _reference(path: str) -> str:
    return f'@"{path}"' if " " in path else f"@{path}"


def file_suggestions(index: ProjectFileIndex, text: str, offset: int) -> list[Suggestion]:
    """The finder's rows for an ``@`` word at the cursor (none when there is none)."""
    found = at_query(text, offset)
    if found is None or not index.ready:
        return []
    start, query = found
    return [
        Suggestion(_reference(m.path), m.path, start=start, end=offset)
        for m in index.search(query, FINDER_LIMIT)
    ]


def project_index(composer: Composer) -> ProjectFileIndex:
    """The composer's file index, listed in the background on first use and again when
    an ``@`` word starts after :data:`INDEX_FRESH_S` (files come and go)."""
    index = composer.file_index
    if index is None:
        index = composer.file_index = ProjectFileIndex(composer.project_root or Path.cwd())
    if index.age is None or (index.ready and index.age > INDEX_FRESH_S):
        task = index.start()
        task.add_done_callback(lambda _task: composer.refresh_suggestions())
    return index


async def tab_complete(composer: Composer) -> None:
    """Complete the path before the cursor; several matches: offer them in the list."""
    text, offset = composer.text, cursor_offset(composer)
    done = await complete_path(text, offset, composer.project_root or Path.cwd())
    if done is None or composer.text != text:
        return
    if done.replacement:
        replace_range(composer, done.start, done.end, done.replacement)
    if len(done.candidates) > 1:
        end = done.start + len(done.replacement) if done.replacement else offset
        rows = [
            Suggestion(done.candidate_word(c), c, start=done.word_start, end=end)
            for c in done.candidates
        ]
        composer.show_suggestions(rows)


async def external_edit(composer: Composer) -> None:
    """Edit the composer's text in ``$VISUAL``/``$EDITOR`` with the TUI suspended."""
    command = editor_command(composer.external_editor)
    if command is None:
        composer.app.notify(NO_EDITOR, severity="warning")
        return
    try:
        with composer.app.suspend():
            result = edit_text(command, composer.text)
    except Exception as exc:  # SuspendNotSupported, e.g. under a test driver or a web app
        composer.app.notify(f"Cannot open an external editor here: {exc}", severity="warning")
        return
    if result.text is None:
        composer.app.notify(result.problem or "Prompt unchanged", severity="warning")
        return
    composer.load_text(result.text)
    composer.move_cursor(composer.document.end)


def image_path_in(pasted: str, root: Path) -> Path | None:
    """The image file a paste names (a path, quoted or ``file://``), or None."""
    value = pasted.strip().strip("'\"")
    value = value.removeprefix("file://")
    if not value or "\n" in value or not value.lower().endswith(IMAGE_SUFFIXES):
        return None
    path = Path(os.path.expanduser(value.replace("\\ ", " ")))
    return path if path.is_absolute() else root / path


async def attach_image_file(composer: Composer, path: Path) -> bool:
    """Attach an image file as a chip; False when it is not a readable image."""
    import aiofiles

    try:
        async with aiofiles.open(path, "rb") as handle:
            raw = await handle.read()
    except OSError:
        return False
    mime = sniff_image_mime(raw[:SNIFF_BYTES])
    if mime is None:
        return False
    composer.add_image(await pending_image(raw, mime, path.name))
    return True


async def paste_clipboard_image(composer: Composer) -> None:
    """Ctrl+V: attach the clipboard's image, or say why there is none."""
    from pitui.core.attachments.clipboard import ClipboardError, read_clipboard_image

    try:
        raw, mime = await read_clipboard_image()
    except ClipboardError as exc:
        composer.app.notify(str(exc), severity="warning")
        return
    label = f"clipboard image {len(composer.images) + 1}"
    composer.add_image(await pending_image(raw, mime, label))


def chip_labels(images: list[PendingImage]) -> list[str]:
    """One chip text per image."""
    return [f"[image] {image.label}" for image in images]
