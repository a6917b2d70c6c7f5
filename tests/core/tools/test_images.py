"""Image downscaling (needs Pillow, which is optional: skipped without it)."""

from __future__ import annotations

import base64
import importlib.util
import io
from pathlib import Path

import pytest

from pitui.ai.types import ImageContent
from pitui.core.tools.images import ResizedImage, dimension_note, resize_image
from pitui.core.tools.read import ReadTool

from .helpers import run, text

HAVE_PIL = importlib.util.find_spec("PIL") is not None


def test_dimension_note() -> None:
    image = ResizedImage("", "image/png", 4000, 1000, 2000, 500, was_resized=True)
    assert dimension_note(image) == (
        "[Image: original 4000x1000, displayed at 2000x500. "
        "Multiply coordinates by 2.00 to map to original image.]"
    )
    assert dimension_note(ResizedImage("", "image/png")) is None


def test_without_pillow_or_small_image_passes_through() -> None:
    raw = b"\x89PNG\r\n\x1a\nnot really decodable"
    result = resize_image(raw, "image/png")
    assert not result.was_resized
    assert base64.b64decode(result.data) == raw


@pytest.mark.skipif(not HAVE_PIL, reason="Pillow not installed")
async def test_large_image_is_downscaled(tmp_path: Path) -> None:
    from PIL import Image  # type: ignore[import-not-found,unused-ignore]

    buffer = io.BytesIO()
    Image.new("RGB", (3000, 600), (200, 10, 10)).save(buffer, format="PNG")
    (tmp_path / "wide.png").write_bytes(buffer.getvalue())
    result = await run(ReadTool(tmp_path), path="wide.png")
    assert text(result).startswith("Read image file [image/")
    assert "[Image: original 3000x600, displayed at 2000x400. Multiply coordinates by 1.50" in (
        text(result)
    )
    block = result.content[1]
    assert isinstance(block, ImageContent)
    shown = Image.open(io.BytesIO(base64.b64decode(block.data)))
    assert shown.size == (2000, 400)
