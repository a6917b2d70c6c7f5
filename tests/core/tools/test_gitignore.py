"""gitignore-style glob compilation and the ignoring walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.core.tools.gitignore import compile_glob, walk


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "hit"),
    [
        ("*.log", "a.log", False, True),
        ("*.log", "deep/dir/a.log", False, True),
        ("/root.txt", "root.txt", False, True),
        ("/root.txt", "sub/root.txt", False, False),
        ("doc/*.md", "doc/a.md", False, True),
        ("doc/*.md", "doc/x/a.md", False, False),
        ("doc/**/*.md", "doc/x/y/a.md", False, True),
        ("doc/**/*.md", "doc/a.md", False, True),
        ("**/cache", "a/b/cache", True, True),
        ("logs/**", "logs/x/y", False, True),
        ("build/", "build", True, True),
        ("build/", "build", False, False),
        ("file?.txt", "file1.txt", False, True),
        ("file?.txt", "file10.txt", False, False),
        ("[ab].txt", "b.txt", False, True),
        ("[!ab].txt", "c.txt", False, True),
        ("[!ab].txt", "a.txt", False, False),
        ("\\#hash", "#hash", False, True),
        ("trailing  ", "trailing", False, True),
    ],
)
def test_compile_glob(pattern: str, path: str, is_dir: bool, hit: bool) -> None:
    rule = compile_glob(pattern)
    assert rule is not None
    assert rule.matches(path, is_dir) is hit


def test_blank_comment_and_negation() -> None:
    assert compile_glob("") is None
    assert compile_glob("# comment") is None
    rule = compile_glob("!keep.txt")
    assert rule is not None and rule.negate


def test_walk_skips_ignored_dirs_and_git(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("node_modules\n")
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / "index.js").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    found = [(e.rel_path, e.is_dir) for e in walk(str(tmp_path))]
    assert found == [(".gitignore", False), ("src", True), ("src/main.py", False)]
    every = [e.rel_path for e in walk(str(tmp_path), respect_gitignore=False)]
    assert "node_modules/pkg/index.js" in every
