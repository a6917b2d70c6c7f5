"""A user home and a project (a git repository) for resource discovery tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``HOME`` for ``~/.agents`` and ``~/.pi/agent`` (pi's own dir variable unset)."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    return home


@pytest.fixture
def repo(tmp_path: Path, user_home: Path) -> Path:
    """A project folder that is a repository root (``.git`` inside)."""
    root = tmp_path / "work" / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def write_skill(
    folder: Path, name: str | None, description: str | None, body: str = "Body."
) -> Path:
    """``folder/SKILL.md`` with the given frontmatter fields (None: left out)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    lines += ["---", body, ""]
    path = folder / "SKILL.md"
    path.write_text("\n".join(lines))
    return path
