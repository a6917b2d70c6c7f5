"""The composer's file finder index and Tab path completion."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core.attachments.file_index import ProjectFileIndex, list_project_files
from pitui.core.attachments.path_completion import complete_now, word_before


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in [
        "README.md",
        "src/app.py",
        "src/core/read_file.py",
        "docs/reading.md",
        "build/out.bin",
        ".git/config",
        ".env",
    ]:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    (root / ".gitignore").write_text("build/\n")
    return root


async def test_listing_honours_gitignore_and_skips_git(project: Path) -> None:
    files = await list_project_files(project, use_tools=False)
    assert files == [
        ".env",
        ".gitignore",
        "README.md",
        "docs/reading.md",
        "src/app.py",
        "src/core/read_file.py",
    ]
    if os.environ.get("PATH") and (await list_project_files(project)) != files:
        pytest.fail("fd/rg list differently from the Python walk")


async def test_search_ranks_name_matches_first(project: Path) -> None:
    index = ProjectFileIndex(project)
    assert not index.ready
    await index.start()
    assert index.ready
    assert [m.path for m in index.search("REA")][:1] == ["README.md"]
    assert "src/" in index.paths and "src/core/" in index.paths
    assert [m.path for m in index.search("srcrf")] == ["src/core/read_file.py"]
    assert index.search("zzz") == []
    assert len(index.search("", limit=3)) == 3


def test_word_before() -> None:
    assert word_before("read sr", 7) == (5, "sr")
    assert word_before("see @REA", 8) == (5, "REA")
    assert word_before('see @"my fi', 11) == (6, "my fi")


def test_tab_completes_a_folder_a_file_and_a_common_prefix(project: Path) -> None:
    done = complete_now("read sr", 7, project)
    assert done is not None and done.apply("read sr") == ("read src/", 9)
    done = complete_now("read src/a", 10, project)
    assert done is not None and done.apply("read src/a") == ("read src/app.py", 15)
    done = complete_now("@REA and more", 4, project)
    assert done is not None and done.apply("@REA and more") == ("@README.md and more", 10)
    (project / "src" / "apple.txt").write_text("x")
    done = complete_now("src/a", 5, project)
    assert done is not None and done.apply("src/a")[0] == "src/app"
    assert done.candidates == ["app.py", "apple.txt"]
    assert complete_now("nothing", 7, project) is None
    hidden = complete_now(".e", 2, project)
    assert hidden is not None and hidden.apply(".e")[0] == ".env"


def test_unicode_whose_lowercase_is_longer_still_maps_to_its_line(tmp_path: Path) -> None:
    index = ProjectFileIndex(tmp_path)
    index.set_paths(["İstanbul/plan.md", "odd\nname.md", "zeta/readme.md"])
    assert [m.path for m in index.search("zrdm")] == ["zeta/readme.md"]
    assert [m.path for m in index.search("plan")] == ["İstanbul/plan.md"]
