"""Image sniffing by magic bytes, and pi's optional downscaling before images reach a model.

Resizing uses Pillow when it is installed; without it images pass through unchanged,
exactly as pi behaves when its image library is unavailable.
"""

from __future__ import annotations

import base64
import importlib
import io
from typing import Any

import msgspec

SNIFF_BYTES = 4100
MAX_DIMENSION = 2000
MAX_IMAGE_BYTES = int(4.5 * 1024 * 1024)
_QUALITY_STEPS = (85, 70, 55, 40)
_SCALE_STEPS = (1.0, 0.75, 0.5, 0.35, 0.25)


def sniff_image_mime(head: bytes) -> str | None:
    """The MIME type of a supported image (jpeg, png, gif, webp) from its first bytes."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class ResizedImage(msgspec.Struct):
    """An image ready for a model, with the sizes needed for pi's dimension note."""

    data: str
    mime_type: str
    original_width: int = 0
    original_height: int = 0
    width: int = 0
    height: int = 0
    was_resized: bool = False


def dimension_note(image: ResizedImage) -> str | None:
    """pi's note telling the model how displayed coordinates map to the original."""
    if not image.was_resized or image.width == 0:
        return None
    scale = image.original_width / image.width
    return (
        f"[Image: original {image.original_width}x{image.original_height}, "
        f"displayed at {image.width}x{image.height}. "
        f"Multiply coordinates by {scale:.2f} to map to original image.]"
    )


def _load_pillow() -> Any | None:
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        return None


def _encode(pil: Any, image: Any, size: tuple[int, int], quality: int) -> tuple[bytes, str]:
    """Resize and encode as PNG and JPEG; return the smaller encoding."""
    resized = image.resize(size, pil.Resampling.LANCZOS)
    png = io.BytesIO()
    resized.save(png, format="PNG")
    jpeg = io.BytesIO()
    resized.convert("RGB").save(jpeg, format="JPEG", quality=quality)
    if len(png.getvalue()) <= len(jpeg.getvalue()):
        return png.getvalue(), "image/png"
    return jpeg.getvalue(), "image/jpeg"


def _fit(width: int, height: int) -> tuple[int, int]:
    if width > MAX_DIMENSION:
        height = round(height * MAX_DIMENSION / width)
        width = MAX_DIMENSION
    if height > MAX_DIMENSION:
        width = round(width * MAX_DIMENSION / height)
        height = MAX_DIMENSION
    return width, height


def resize_image(raw: bytes, mime_type: str) -> ResizedImage:
    """Fit an image into 2000x2000 and 4.5 MB, as pi does (blocking; run in a thread)."""
    unchanged = ResizedImage(data=base64.b64encode(raw).decode("ascii"), mime_type=mime_type)
    pil = _load_pillow()
    if pil is None:
        return unchanged
    try:
        image = pil.open(io.BytesIO(raw))
        image.load()
    except (OSError, ValueError):
        return unchanged
    width, height = image.size
    if width <= MAX_DIMENSION and height <= MAX_DIMENSION and len(raw) <= MAX_IMAGE_BYTES:
        unchanged.original_width, unchanged.original_height = width, height
        unchanged.width, unchanged.height = width, height
        return unchanged
    target = _fit(width, height)
    best = _encode(pil, image, target, 80)
    final = target
    attempts = [(target, q) for q in _QUALITY_STEPS]
    for scale in _SCALE_STEPS:
        size = (round(target[0] * scale), round(target[1] * scale))
        if size[0] < 100 or size[1] < 100:
            break
        attempts.extend((size, q) for q in _QUALITY_STEPS)
    for size, quality in attempts:
        if len(best[0]) <= MAX_IMAGE_BYTES:
            break
        best, final = _encode(pil, image, size, quality), size
    return ResizedImage(
        data=base64.b64encode(best[0]).decode("ascii"),
        mime_type=best[1],
        original_width=width,
        original_height=height,
        width=final[0],
        height=final[1],
        was_resized=True,
    )
