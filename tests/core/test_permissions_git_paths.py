"""``write``/``edit`` where git finds code to run ask, whatever the mode (issue 21).

The bash sandbox keeps ``.git``, a ``core.hooksPath`` folder and nested repositories
read-only; the file tools must not be the way round it: under ``workspace`` (and
``edits``) a write into them would have run on the user's next ``git commit``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pitui.core.permissions import GIT_FILE_REASON, PermissionGate, PermissionPolicy


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A real repository with husky's hooks folder and an embedded bare repository."""
    folder = tmp_path / "project"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "config", "core.hooksPath", ".husky"], check=True)
    (folder / ".husky").mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(folder / "fixtures" / "repo")], check=True)
    vendored = folder / "vendor" / "lib"  # a nested repository with husky's hooks too
    subprocess.run(["git", "init", "-q", str(vendored)], check=True)
    subprocess.run(["git", "-C", str(vendored), "config", "core.hooksPath", ".husky"], check=True)
    (vendored / ".husky").mkdir()
    return folder


@pytest.mark.parametrize(
    "path",
    [
        ".git/hooks/pre-commit",
        ".git/config",
        "lib/.git/config",  # a nested repository, new or not
        "sub/HEAD",  # what makes a folder a bare repository
        "fixtures/repo/config",
        "fixtures/repo/hooks/post-checkout",
        ".husky/pre-commit",
        "vendor/lib/.husky/pre-commit",
    ],
)
@pytest.mark.parametrize("mode", ["workspace", "edits"])
def test_a_write_where_git_runs_code_asks(project: Path, path: str, mode: str) -> None:
    policy = PermissionPolicy(project, mode)  # type: ignore[arg-type]
    for tool in ("write", "edit"):
        assert policy.verdict(tool, {"path": path}) == ("ask", GIT_FILE_REASON)
    rule, why = policy.always_offer("write", {"path": path}, False, GIT_FILE_REASON)
    assert rule is None and "asks each time" in why


@pytest.mark.parametrize("path", ["src/config", ".gitignore", ".github/workflows/ci.yml", "a.txt"])
def test_ordinary_files_are_still_written_unasked(project: Path, path: str) -> None:
    assert PermissionPolicy(project, "workspace").verdict("write", {"path": path}) == ("allow", "")


async def test_with_nobody_to_ask_it_is_refused(project: Path) -> None:
    gate = PermissionGate(PermissionPolicy(project, "workspace"))
    message = await gate.check("call-1", "write", {"path": ".git/hooks/pre-commit"})
    assert message is not None and "git finds code to run" in message
