"""The external editor round trip and clipboard images, with scripted programs on PATH."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from PIL import Image

from pitui.core.attachments.clipboard import ClipboardError, read_clipboard_image
from pitui.core.external_editor import edit_text, editor_command


def _script(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_editor_is_the_setting_then_visual_then_editor() -> None:
    env = {"VISUAL": "vim -u NONE", "EDITOR": "nano"}
    assert editor_command("code --wait", env) == ["code", "--wait"]
    assert editor_command(None, env) == ["vim", "-u", "NONE"]
    assert editor_command(None, {"EDITOR": "nano"}) == ["nano"]
    assert editor_command(None, {}) is None


def test_text_round_trips_through_a_scripted_editor(tmp_path: Path) -> None:
    editor = _script(tmp_path, "ed.sh", 'printf "edited: %s\\n" "$(cat "$1")" > "$1"\n')
    result = edit_text([str(editor)], "draft text")
    assert result.text == "edited: draft text" and result.problem is None


def test_a_failing_editor_leaves_the_text(tmp_path: Path) -> None:
    editor = _script(tmp_path, "ed.sh", "exit 3\n")
    result = edit_text([str(editor)], "draft")
    assert result.text is None and result.problem is not None and "code 3" in result.problem
    missing = edit_text([str(tmp_path / "nope")], "draft")
    assert missing.text is None and "Failed to launch" in (missing.problem or "")


async def test_a_clipboard_image_is_read_with_xclip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Image.new("RGB", (4, 4)).save(tmp_path / "clip.png")
    bin_dir = tmp_path / "bin"
    _script(
        bin_dir,
        "xclip",
        'case "$*" in *TARGETS*) echo TARGETS; echo image/png;; '
        f'*image/png*) cat "{tmp_path / "clip.png"}";; esac\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    raw, mime = await read_clipboard_image()
    assert mime == "image/png" and raw == (tmp_path / "clip.png").read_bytes()


async def test_no_clipboard_tool_names_the_missing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    with pytest.raises(ClipboardError, match="wl-paste"):
        await read_clipboard_image()
    monkeypatch.delenv("WAYLAND_DISPLAY")
    with pytest.raises(ClipboardError, match="xclip"):
        await read_clipboard_image()
    assert os.environ["PATH"] == str(tmp_path)
