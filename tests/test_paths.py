"""pitui.paths: every on-disk location, under ``$PITUI_HOME`` or ``~/.pitui``."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui import paths


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user home directory of our own, with no PITUI_HOME override."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PITUI_HOME", raising=False)
    return home


def test_default_home_is_dot_pitui(fake_home: Path) -> None:
    assert paths.home() == fake_home / ".pitui"


def test_default_layout(fake_home: Path) -> None:
    root = fake_home / ".pitui"
    assert paths.settings_file() == root / "settings.json"
    assert paths.models_file() == root / "models.json"
    assert paths.auth_file() == root / "auth.json"
    assert paths.keybindings_file() == root / "keybindings.json"
    assert paths.sessions_dir() == root / "sessions"
    assert paths.themes_dir() == root / "themes"


def test_pitui_home_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    custom = tmp_path / "elsewhere"
    monkeypatch.setenv("PITUI_HOME", str(custom))
    assert paths.home() == custom
    assert paths.settings_file() == custom / "settings.json"
    assert paths.models_file() == custom / "models.json"
    assert paths.auth_file() == custom / "auth.json"
    assert paths.keybindings_file() == custom / "keybindings.json"
    assert paths.sessions_dir() == custom / "sessions"
    assert paths.themes_dir() == custom / "themes"


def test_override_is_read_on_every_call(fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert paths.home() == fake_home / ".pitui"
    monkeypatch.setenv("PITUI_HOME", str(fake_home / "later"))
    assert paths.home() == fake_home / "later"


def test_override_expands_tilde(fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_HOME", "~/pitui-data")
    assert paths.home() == fake_home / "pitui-data"


def test_empty_override_means_default(fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_HOME", "")
    assert paths.home() == fake_home / ".pitui"


def test_conftest_isolates_every_test_home(pitui_home: Path) -> None:
    assert paths.home() == pitui_home
    assert paths.home() != Path.home() / ".pitui"


def test_project_locations(tmp_path: Path) -> None:
    assert paths.project_dir(tmp_path) == tmp_path / ".pitui"
    assert paths.project_settings_file(tmp_path) == tmp_path / ".pitui" / "settings.json"


def test_pi_themes_dir_is_pis_own(fake_home: Path) -> None:
    assert paths.pi_themes_dir() == fake_home / ".pi" / "agent" / "themes"


def test_paths_create_nothing(fake_home: Path) -> None:
    for function in (paths.settings_file, paths.sessions_dir, paths.themes_dir, paths.auth_file):
        function()
    assert list(fake_home.iterdir()) == []
