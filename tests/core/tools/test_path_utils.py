"""Path resolution as pi does it: @, ~, Unicode spaces, cwd, macOS name variants."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core.tools.path_utils import expand_path, resolve_read_path, resolve_to_cwd


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def test_tilde_expansion(fake_home: Path) -> None:
    assert expand_path("~") == str(fake_home)
    assert expand_path("~/docs/a.txt") == f"{fake_home}/docs/a.txt"
    assert expand_path("~other") == "~other"
    assert resolve_to_cwd("~/x", "/somewhere") == f"{fake_home}/x"


def test_at_prefix_and_unicode_spaces() -> None:
    assert expand_path("@src/a.py") == "src/a.py"
    assert expand_path("file\u00a0name.txt") == "file name.txt"
    for space in ("\u2000", "\u200a", "\u202f", "\u205f", "\u3000"):
        assert expand_path(f"a{space}b") == "a b"


def test_relative_and_absolute() -> None:
    assert resolve_to_cwd("/abs/file.txt", "/cwd") == "/abs/file.txt"
    assert resolve_to_cwd("rel/file.txt", "/cwd") == "/cwd/rel/file.txt"
    assert resolve_to_cwd("../up.txt", "/cwd/sub") == "/cwd/up.txt"
    assert resolve_to_cwd(".", "/cwd") == "/cwd"


def test_read_path_variants(tmp_path: Path) -> None:
    am = "Screenshot 2024-01-01 at 10.00.00\u202fAM.png"
    (tmp_path / am).write_text("x")
    assert resolve_read_path("Screenshot 2024-01-01 at 10.00.00 AM.png", tmp_path) == os.path.join(
        tmp_path, am
    )
    curly = "Capture d\u2019\u00e9cran.txt"
    (tmp_path / curly).write_text("x")
    assert resolve_read_path("Capture d'\u00e9cran.txt", tmp_path) == os.path.join(tmp_path, curly)
    nfd = "file\u0065\u0301.txt"
    (tmp_path / nfd).write_text("x")
    assert resolve_read_path("file\u00e9.txt", tmp_path) == os.path.join(tmp_path, nfd)
    assert resolve_read_path("missing.txt", tmp_path) == os.path.join(tmp_path, "missing.txt")
