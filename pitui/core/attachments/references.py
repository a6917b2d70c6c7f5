"""``@path`` references in typed text, attached when the prompt is sent.

A reference is ``@`` at the start of the text or after whitespace, followed by a path
(``@"a path with spaces"`` quoted). Only references to existing files count: ``@alice``
stays text. Trailing punctuation (``see @notes.md.``) is not part of the path unless
the file has it. Each file is attached once, in pi's form (:mod:`.files`), before the
typed text, which is kept as typed. Files outside the project are not attached.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pitui.ai.types import ImageContent, Model
from pitui.core.attachments.files import attach_files, refuse_images
from pitui.core.tools.path_utils import resolve_read_path

_REFERENCE = re.compile(r'(?:(?<=\s)|^)@(?:"([^"\n]+)"|(\S+))')
_TRAILING = ".,;:!?)]}'\""


@dataclass
class PreparedPrompt:
    """A typed prompt ready to send: text (with the file blocks first) and images."""

    text: str
    images: list[ImageContent] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the user should be told (files not attached, and why)."""


def reference_tokens(text: str) -> list[str]:
    """Every ``@`` path as typed (quotes removed), in order, repeats included."""
    return [m[1] or m[2] for m in _REFERENCE.finditer(text) if (m[1] or m[2])]


def _existing(token: str, cwd: Path) -> str | None:
    """The form of ``token`` that names an existing file (blocking: a few stats)."""
    candidate = token
    while candidate:
        if os.path.isfile(resolve_read_path(candidate, cwd)):
            return candidate
        if candidate[-1] not in _TRAILING:
            return None
        candidate = candidate[:-1]
    return None


async def referenced_files(text: str, cwd: Path) -> list[str]:
    """The ``@`` references of ``text`` that name existing files, each once."""
    tokens = reference_tokens(text)
    if not tokens:
        return []
    found = await asyncio.to_thread(lambda: [_existing(t, cwd) for t in tokens])
    return list(dict.fromkeys(f for f in found if f is not None))


async def prepare_prompt(
    text: str,
    cwd: Path,
    *,
    model: Model | None = None,
    auto_resize: bool = True,
    send_text: str | None = None,
    images: Sequence[ImageContent] = (),
) -> PreparedPrompt:
    """``text`` with its referenced files attached (typed text unchanged, after them).

    ``send_text``: what to send after the files instead of ``text`` (its expansion, when
    it was a command: references are looked for in what was typed, never in a skill's
    body). ``images``: attached already (pasted); they count for the model check.

    Raises:
        AttachmentError: Images go to a model without image input, or a file vanished.
    """
    body = text if send_text is None else send_text
    files = await referenced_files(text, cwd)
    if not files:
        refuse_images(model, len(images))
        return PreparedPrompt(body, list(images))
    attachments = await attach_files(files, cwd, auto_resize=auto_resize, project_only=True)
    every = [*images, *attachments.images]
    refuse_images(model, len(every))
    return PreparedPrompt(attachments.text + body, every, attachments.notes)
