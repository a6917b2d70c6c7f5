"""An image given with a prompt (pasted, dropped as a path): ready for the model."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass

from pitui.ai.types import ImageContent
from pitui.core.tools.images import resize_image


@dataclass(frozen=True, slots=True)
class PendingImage:
    """An image waiting in the composer, shown as a chip until the prompt is sent."""

    label: str
    """What the chip says (the file name, or ``clipboard image 1``)."""
    content: ImageContent


async def pending_image(
    raw: bytes, mime: str, label: str, *, auto_resize: bool = True
) -> PendingImage:
    """Encode (and, as ``read`` does, shrink) ``raw`` off the event loop."""
    if auto_resize:
        image = await asyncio.to_thread(resize_image, raw, mime)
        content = ImageContent(data=image.data, mime_type=image.mime_type)
    else:
        content = ImageContent(data=base64.b64encode(raw).decode("ascii"), mime_type=mime)
    return PendingImage(label, content)
