"""Files and ``@`` references become pi's attachment form, with clear notes."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Literal

import pytest
from PIL import Image

from pitui.ai.types import Model
from pitui.core.attachments.files import MAX_TEXT_BYTES, AttachmentError, attach_files
from pitui.core.attachments.references import prepare_prompt, reference_tokens


def _png(path: Path, size: tuple[int, int] = (20, 10)) -> Path:
    Image.new("RGB", size, (255, 0, 0)).save(path)
    return path


def _model(*inputs: Literal["text", "image"]) -> Model:
    return Model(id="m", name="m", api="anthropic-messages", provider="p", input=list(inputs))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.md").write_text("hello notes\n")
    (root / "empty.txt").write_text("")
    return root


async def test_text_image_and_empty_files_as_pi_sends_them(project: Path) -> None:
    _png(project / "img.png")
    result = await attach_files(["notes.md", "img.png", "empty.txt", "./notes.md"], project)
    assert result.text == (
        f'<file name="{project}/notes.md">\nhello notes\n\n</file>\n'
        f'<file name="{project}/img.png"></file>\n'
    )
    [image] = result.images
    assert image.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (20, 10)
    assert result.notes == []


async def test_a_large_image_is_resized_with_pi_s_note(project: Path) -> None:
    _png(project / "big.png", (3000, 1000))
    result = await attach_files(["big.png"], project)
    [image] = result.images
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (2000, 667)
    assert "[Image: original 3000x1000, displayed at 2000x667." in result.text


async def test_too_large_binary_and_outside_files_get_a_note(project: Path, tmp_path: Path) -> None:
    (project / "huge.log").write_text("x" * (MAX_TEXT_BYTES + 1))
    (project / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "secret.txt").write_text("key")
    result = await attach_files(
        ["huge.log", "blob.bin", str(tmp_path / "secret.txt")], project, project_only=True
    )
    assert result.images == [] and "key" not in result.text
    huge, blob, outside = result.notes
    assert "huge.log: not attached" in huge and "over the 256 KB limit" in huge
    assert "blob.bin: not attached, a binary file" in blob
    assert "outside the project folder" in outside
    assert f'<file name="{project}/huge.log">[File not attached:' in result.text


async def test_a_missing_file_is_an_error(project: Path) -> None:
    with pytest.raises(AttachmentError, match="File not found"):
        await attach_files(["nope.md"], project)


async def test_a_model_without_image_input_is_refused_before_sending(project: Path) -> None:
    _png(project / "img.png")
    with pytest.raises(AttachmentError, match="p/m does not accept images"):
        await attach_files(["img.png"], project, model=_model("text"))
    ok = await attach_files(["img.png"], project, model=_model("text", "image"))
    assert len(ok.images) == 1


def test_reference_tokens() -> None:
    assert reference_tokens('see @a.py and @"my file.md", mail me@x.org') == ["a.py", "my file.md"]
    assert reference_tokens("@start\n@next") == ["start", "next"]


async def test_typed_references_attach_existing_files_once(project: Path) -> None:
    prepared = await prepare_prompt("what is in @notes.md? and @notes.md, @alice", project)
    assert prepared.text == (
        f'<file name="{project}/notes.md">\nhello notes\n\n</file>\n'
        "what is in @notes.md? and @notes.md, @alice"
    )
    unchanged = await prepare_prompt("no refs @nobody", project)
    assert unchanged.text == "no refs @nobody" and unchanged.images == []
