"""Settings: pi's keys, global + project merge, invalid fields reported and dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from pitui import paths
from pitui.ai import _base as base_module
from pitui.core import settings as settings_module
from pitui.core.settings import (
    DefaultsOf,
    Settings,
    defaults,
    load_settings,
    update_global_settings,
)


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


async def test_defaults_without_files(tmp_path: Path) -> None:
    loaded = await load_settings(tmp_path)
    assert loaded.errors == []
    assert loaded.settings.compaction.reserve_tokens == 16384
    assert loaded.settings.retry.base_delay_ms == 2000
    assert loaded.settings.steering_mode == "one-at-a-time"


def _stored(model: BaseModel) -> object:
    """Everything a model object holds, nested models included (``==`` skips fields_set)."""
    return (
        type(model),
        {k: _stored(v) if isinstance(v, BaseModel) else v for k, v in model.__dict__.items()},
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


async def test_no_file_gives_what_validating_nothing_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a settings file the models are not built (pitui/core/settings.py ``_load``):
    the defaults stored are exactly those validation stores, down to the set fields.
    With fields shared (a TUI process, turned on by any UI test before this one) loading
    holds no extras as None, which pydantic reads as the same: compared with it off."""
    import pitui.ai._base as base

    monkeypatch.setattr(base, "_shared_fields", None)
    loaded = await load_settings(tmp_path)
    monkeypatch.setattr(settings_module, "_load", Settings.load)
    validated = await load_settings(tmp_path)
    assert _stored(loaded.settings) == _stored(validated.settings)
    assert loaded.settings.to_json_dict() == validated.settings.to_json_dict()
    assert _stored(defaults(Settings, loaded=True)) == _stored(Settings.load({}))
    assert _stored(defaults(Settings)) == _stored(Settings())
    # A list default is each object's own, as validation makes it.
    assert loaded.settings.approval.allow_tools is not defaults(Settings).approval.allow_tools


def test_each_sections_defaults_are_what_validation_makes() -> None:
    # Every section model made by DefaultsOf is what calling (validating) it makes.
    for name, field in Settings.model_fields.items():
        factory = field.default_factory
        if isinstance(factory, DefaultsOf):
            assert _stored(factory()) == _stored(factory.model()), name
            assert factory() is not factory(), name  # each default its own object


async def test_an_empty_file_is_no_file(tmp_path: Path) -> None:
    _write(paths.settings_file(), "  \n")
    _write(paths.project_settings_file(tmp_path), {})
    loaded = await load_settings(tmp_path)
    assert loaded.errors == []
    assert _stored(loaded.settings) == _stored((await load_settings(tmp_path / "none")).settings)


def test_defaults_while_loaded_fields_are_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    # The TUI shares loaded models' field sets; an unvalidated default still has its own.
    monkeypatch.setattr(base_module, "_shared_fields", {})
    assert defaults(Settings, loaded=True).__pydantic_fields_set__ == set()


async def test_pi_settings_file_means_the_same(tmp_path: Path) -> None:
    _write(
        paths.settings_file(),
        {
            "defaultProvider": "anthropic",
            "defaultModel": "claude-sonnet-4-5",
            "defaultThinkingLevel": "high",
            "compaction": {"reserveTokens": 1000},
            "lastChangelogVersion": "0.58.3",
            "shellPath": "/bin/zsh",
        },
    )
    loaded = await load_settings(tmp_path)
    s = loaded.settings
    assert (s.default_provider, s.default_model, s.default_thinking_level) == (
        "anthropic",
        "claude-sonnet-4-5",
        "high",
    )
    assert s.compaction.reserve_tokens == 1000
    assert s.compaction.keep_recent_tokens == 20000
    assert s.shell_path == "/bin/zsh"


async def test_project_overrides_merge_nested_objects(tmp_path: Path) -> None:
    _write(paths.settings_file(), {"compaction": {"reserveTokens": 1000, "enabled": False}})
    _write(paths.project_settings_file(tmp_path), {"compaction": {"reserveTokens": 5}})
    s = (await load_settings(tmp_path)).settings
    assert s.compaction.reserve_tokens == 5
    assert s.compaction.enabled is False


async def test_invalid_field_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    _write(
        paths.settings_file(),
        {"compaction": {"reserveTokens": "lots"}, "steeringMode": "bogus", "theme": "light"},
    )
    loaded = await load_settings(tmp_path)
    assert loaded.settings.theme == "light"
    assert loaded.settings.compaction.reserve_tokens == 16384
    assert loaded.settings.steering_mode == "one-at-a-time"
    joined = "\n".join(loaded.errors)
    assert str(paths.settings_file()) in joined
    assert "compaction.reserveTokens" in joined
    assert "steeringMode" in joined


async def test_bad_json_is_reported_not_raised(tmp_path: Path) -> None:
    _write(paths.project_settings_file(tmp_path), "{not json")
    loaded = await load_settings(tmp_path)
    assert len(loaded.errors) == 1
    assert "invalid JSON" in loaded.errors[0]


async def test_update_global_settings_is_merged_and_atomic(tmp_path: Path) -> None:
    _write(paths.settings_file(), {"theme": "dark"})
    await update_global_settings({"approval": {"allowTools": ["edit"]}})
    data = json.loads(paths.settings_file().read_text())
    assert data == {"theme": "dark", "approval": {"allowTools": ["edit"]}}
    leftovers = sorted(p.name for p in paths.home().iterdir())
    assert leftovers == ["settings.json"]


async def test_a_broken_settings_file_is_never_overwritten(tmp_path: Path) -> None:
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"approval": ')
    problem = await update_global_settings({"approval": {"allowTools": ["edit"]}})
    assert problem is not None and "invalid JSON" in problem
    assert path.read_text() == '{"approval": '
