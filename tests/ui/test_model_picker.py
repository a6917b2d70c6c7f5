"""The model picker: search, select, model_change entry, status bar, cancel, marks."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from pitui.ui.screens.models import ModelPicker, filter_models, order_models
from pitui.ui.widgets.status_bar import StatusBar
from tests.replay_server import ReplayServer, Reply
from tests.ui.command_support import (
    make_app,
    make_registry,
    make_session,
    model_changes,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    submit,
    wait_until,
)


def test_order_current_first_then_usable() -> None:
    registry = make_registry()
    demo = registry.find("demo", "demo")
    ordered = order_models(registry, demo)
    assert ordered[0] is demo
    usable = [registry.usable_reason(m) is not None for m in ordered]
    assert usable == sorted(usable, reverse=True)  # usable ones before the rest
    assert ordered[1].provider == "fakeco"


def test_fuzzy_filter_matches_provider_and_id() -> None:
    models = order_models(make_registry(), None)
    assert [m.id for m in filter_models(models, "fakeco")] == ["fake-1"]
    assert [m.id for m in filter_models(models, "fake1")] == ["fake-1"]
    assert filter_models(models, "zzzz") == []
    sonnet = filter_models(models, "anthropic sonnet")
    assert sonnet and "sonnet" in sonnet[0].id  # best match first (pi's fuzzy is loose)
    assert all(m.provider == "anthropic" for m in sonnet)


def option_texts(picker: ModelPicker) -> list[str]:
    options = picker.query_one("#model-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_search_select_writes_model_change_and_updates_status(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        rows = option_texts(picker)
        assert rows[0].startswith("demo/demo") and "✓" in rows[0]
        assert rows[0].split()[1:] == ["✓", "128k", "thinking", "[demo]"]
        fake_row = next(r for r in rows if r.startswith("fakeco/fake-1"))
        assert fake_row.split()[1:] == ["32k", "[key]"]
        assert any(r.startswith("anthropic/") and r.endswith("no key") for r in rows)
        await pilot.press(*"fake")
        await settle(pilot)
        assert option_texts(picker)[0].startswith("fakeco/fake-1")
        assert "Model Name: Fake One" in str(picker.query_one("#model-detail", Static).content)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ModelPicker)
        assert session.model is not None and session.model.id == "fake-1"
        assert model_changes(session)[-1] == ("fakeco", "fake-1")
        status = app.main.query_one(StatusBar).part("model")
        assert status.startswith("fake-1")
        assert "Model: fake-1" in notices(app)


async def test_escape_cancels(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    before = model_changes(session)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        await pilot.press("down", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, ModelPicker)
        assert session.model is not None and session.model.id == "demo"
        assert model_changes(session) == before


async def test_arrow_keys_move_and_wrap(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        await pilot.press("up")  # wraps to the last row
        assert picker.highlighted_model is picker.shown[-1]
        await pilot.press("down", "down")
        assert picker.highlighted_model is picker.shown[1]
        await pilot.press("enter")
        await settle(pilot)
        assert model_changes(session)[-1] == ("fakeco", "fake-1")


async def test_slash_model_with_search_prefilters(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/model sonnet")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        assert picker.query_one("#model-search", Input).value == "sonnet"
        assert picker.shown and "sonnet" in picker.shown[0].id


async def test_slash_model_exact_reference_switches_directly(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/model fakeco/fake-1")
        assert not isinstance(app.screen, ModelPicker)
        assert model_changes(session)[-1] == ("fakeco", "fake-1")
        await submit(pilot, "/model claude-sonnet-4-5")  # no key: switched, with a warning
        assert session.model is not None and session.model.provider == "anthropic"
        assert any(n.startswith("No API key for anthropic") for n in notices(app))


async def test_local_ollama_models_appear_marked(
    tmp_path: Path, replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", replay_server.url)
    replay_server.add(
        Reply.json_error(200, {"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}]}),
        Reply.json_error(200, {"capabilities": ["completion", "thinking"]}),
    )
    session = await make_session(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/model qwen")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker")
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        await wait_until(pilot, lambda: "ollama/qwen3:8b" in option_texts(picker)[0], "ollama")
        assert option_texts(picker)[0].split()[1:] == ["128k", "thinking", "[ollama]"]
        await pilot.press("enter")
        await settle(pilot)
        assert model_changes(session)[-1] == ("ollama", "qwen3:8b")
