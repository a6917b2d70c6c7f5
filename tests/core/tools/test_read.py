"""The read tool: paging, truncation notices, errors, images by magic bytes."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.ai.abort import AbortSignal
from pitui.ai.types import ImageContent
from pitui.core.tools.read import ReadTool

from .helpers import run, text

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAwMCAO+X2Z0AAAAASUVORK5CYII="
)


def lines(n: int, fmt: str = "Line {}") -> str:
    return "\n".join(fmt.format(i) for i in range(1, n + 1))


async def test_small_file_verbatim(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Hello, world!\nLine 2\nLine 3")
    result = await run(ReadTool(tmp_path), path="a.txt")
    assert text(result) == "Hello, world!\nLine 2\nLine 3"
    assert result.details is None


async def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"ENOENT: no such file or directory, access '.*nope.txt'"):
        await run(ReadTool(tmp_path), path="nope.txt")


async def test_line_limit_notice(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(lines(2500))
    result = await run(ReadTool(tmp_path), path="big.txt")
    out = text(result)
    assert "Line 2000\n" in out and "Line 2001" not in out
    assert out.endswith("\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    assert result.details["truncation"]["truncatedBy"] == "lines"
    assert result.details["truncation"]["totalLines"] == 2500
    assert result.details["truncation"]["outputLines"] == 2000


async def test_byte_limit_notice(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(lines(500, "Line {}: " + "x" * 200))
    out = text(await run(ReadTool(tmp_path), path="wide.txt"))
    assert "[Showing lines 1-243 of 500 (50.0KB limit). Use offset=244 to continue.]" in out


async def test_offset_and_limit(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(lines(100))
    tool = ReadTool(tmp_path)
    out = text(await run(tool, path="f.txt", offset=51))
    assert out.startswith("Line 51\n") and out.endswith("Line 100")
    out = text(await run(tool, path="f.txt", limit=10))
    assert out == lines(10) + "\n\n[90 more lines in file. Use offset=11 to continue.]"
    out = text(await run(tool, path="f.txt", offset=41, limit=20))
    assert out.startswith("Line 41\n")
    assert out.endswith("Line 60\n\n[40 more lines in file. Use offset=61 to continue.]")


async def test_offset_truncation_notice_counts_from_offset(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(lines(3000))
    out = text(await run(ReadTool(tmp_path), path="f.txt", offset=101))
    assert out.endswith("[Showing lines 101-2100 of 3000. Use offset=2101 to continue.]")


async def test_offset_beyond_end(tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_text("Line 1\nLine 2\nLine 3")
    with pytest.raises(ToolError, match=r"^Offset 100 is beyond end of file \(3 lines total\)$"):
        await run(ReadTool(tmp_path), path="s.txt", offset=100)


async def test_first_line_too_long(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("a\n" + "b" * 60_000)
    result = await run(ReadTool(tmp_path), path="one.txt", offset=2)
    assert text(result) == (
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' one.txt | head -c 51200]"
    )
    assert result.details["truncation"]["firstLineExceedsLimit"] is True


async def test_image_by_magic_bytes_not_extension(tmp_path: Path) -> None:
    (tmp_path / "image.txt").write_bytes(PNG_1X1)
    result = await run(ReadTool(tmp_path), path="image.txt")
    assert text(result) == "Read image file [image/png]"
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG_1X1
    wire = result.to_json_dict()["content"][1]
    assert wire["type"] == "image" and wire["mimeType"] == "image/png"


async def test_fake_image_extension_reads_as_text(tmp_path: Path) -> None:
    (tmp_path / "not.png").write_text("definitely not a png")
    result = await run(ReadTool(tmp_path), path="not.png")
    assert text(result) == "definitely not a png"
    assert all(b.type == "text" for b in result.content)


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\xff\xd8\xff\xe0rest", "image/jpeg"),
        (b"GIF89a....", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
async def test_other_image_types(tmp_path: Path, head: bytes, mime: str) -> None:
    (tmp_path / "blob").write_bytes(head)
    result = await run(ReadTool(tmp_path, auto_resize_images=False), path="blob")
    assert text(result) == f"Read image file [{mime}]"


async def test_at_prefix_and_aborted(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    assert text(await run(ReadTool(tmp_path), path="@a.txt")) == "x"
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await run(ReadTool(tmp_path), signal=signal, path="a.txt")


async def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"ok \xff\xfe end")
    assert text(await run(ReadTool(tmp_path), path="bin.txt")) == "ok \ufffd\ufffd end"


async def test_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match=r"^EISDIR: illegal operation on a directory, read$"):
        await run(ReadTool(tmp_path), path="d")
