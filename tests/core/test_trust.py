"""The trust store: decisions per project and subject, kept in the pitui home."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pitui import paths
from pitui.core.trust import PROJECT_RESOURCES, TrustStore, load_trust, subject_fingerprint


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITUI_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


async def test_a_decision_is_remembered_per_project(home: Path, tmp_path: Path) -> None:
    project, other = tmp_path / "p", tmp_path / "q"
    project.mkdir()
    other.mkdir()
    store = await load_trust()
    assert store.decision(project, PROJECT_RESOURCES) is None
    await store.decide(project, PROJECT_RESOURCES, True)
    again = await load_trust()
    assert again.decision(project, PROJECT_RESOURCES) is True
    assert again.decision(other, PROJECT_RESOURCES) is None
    assert stat.S_IMODE(os.stat(paths.trust_file()).st_mode) == 0o600
    assert paths.trust_file().parent == home


async def test_a_symlinked_project_is_the_same_project(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (tmp_path / "link").symlink_to(project)
    store = await load_trust()
    await store.decide(tmp_path / "link", "mcp:x:1", False)
    assert (await load_trust()).decision(project, "mcp:x:1") is False


async def test_writers_keep_each_others_decisions(home: Path, tmp_path: Path) -> None:
    first, second = await load_trust(), await load_trust()
    await first.decide(tmp_path, "a", True)
    await second.decide(tmp_path, "b", False)
    store = await load_trust()
    assert (store.decision(tmp_path, "a"), store.decision(tmp_path, "b")) == (True, False)


def test_a_malformed_file_means_nothing_decided(home: Path, tmp_path: Path) -> None:
    home.mkdir()
    paths.trust_file().write_text('{"projects": [1, 2]', encoding="utf-8")
    assert TrustStore.read().decision(tmp_path, "a") is None
    paths.trust_file().write_text('{"projects": {"/x": {"a": "yes"}}}', encoding="utf-8")
    assert TrustStore.read().decision(Path("/x"), "a") is None


def test_fingerprints_change_with_the_command() -> None:
    a = subject_fingerprint({"command": "npx", "args": ["srv"]})
    assert a == subject_fingerprint({"args": ["srv"], "command": "npx"})
    assert a != subject_fingerprint({"command": "npx", "args": ["srv", "--evil"]})


def test_the_project_state_folder_is_in_the_home(home: Path, tmp_path: Path) -> None:
    folder = paths.project_state_dir(tmp_path / "My Proj")
    assert folder.parent == home / "projects"
    assert folder.name.startswith("My_Proj-")
    assert paths.project_state_dir(tmp_path / "My Proj") == folder
