"""Commands and keys that need the session, typed while it still loads: they wait for
it and run once it is up, in the order typed (Esc cancels them); none says "No session
is connected" while a session is on its way."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ui.controllers.prompt import WAITING_NOTICE
from pitui.ui.live.session import NO_SESSION
from pitui.ui.screens.mcp import McpScreen
from pitui.ui.screens.models import ModelPicker
from pitui.ui.view.state import NoticeItem
from tests.ui.flows import items_of, launch, make_project, started, submit, wait_for
from tests.ui.harness import settle
from tests.ui.test_flows_demo import slow_startup


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def _notices(app: object) -> list[str]:
    from pitui.ui.app import PituiApp

    assert isinstance(app, PituiApp)
    return [n.text for n in items_of(app, NoticeItem)]


async def test_a_command_typed_while_loading_runs_once_the_session_is_up(project: Path) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/mcp")
        await pilot.pause(0.05)
        assert not isinstance(app.screen, McpScreen)
        assert not any(NO_SESSION in text for text in _notices(app))
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), "the /mcp screen")
        await settle(pilot)
        assert not any(NO_SESSION in text for text in _notices(app))


async def test_commands_typed_while_loading_run_in_the_order_typed(project: Path) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/name first")
        await submit(pilot, "/name second")
        await pilot.pause(0.6)  # more than a moment: it says it waits
        waiting = [t for t in _notices(app) if t.startswith(WAITING_NOTICE)]
        assert waiting == [
            f"{WAITING_NOTICE}: /name first, /name second run once it is up (Escape cancels)."
        ]
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: "Session name set: second" in _notices(app), "both")
        await settle(pilot)
        assert app.live is not None and app.live.session.session_name == "second"


async def test_a_key_typed_while_loading_waits_for_the_session(project: Path) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+l")
        await pilot.pause(0.05)
        assert not isinstance(app.screen, ModelPicker)
        assert not any(NO_SESSION in text for text in _notices(app))
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker), "the model picker")
        await settle(pilot)


async def test_a_key_while_loading_with_nothing_waiting_loads_no_prompt_controller(
    project: Path,
) -> None:
    """Commands wait in the prompt controller: a key while the keys are held and nothing
    waits (one the terminal sends as Textual starts) does not make it, nor load its
    modules before the first frame; once it exists, Esc asks it."""
    from textual.events import Key

    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.loading
        vars(app).pop("prompts", None)  # as before the first frame: not made yet
        hold = app.key_gate.hold()
        assert not app._passes_gate(Key("escape", None))
        assert "prompts" not in vars(app)
        await submit(pilot, "/mcp")  # waits for the session, in the controller
        await pilot.pause(0.05)
        assert "prompts" in vars(app) and app._passes_gate(Key("escape", None))
        hold.release()
        release.set()
        await started(pilot)
        await settle(pilot)


async def test_esc_cancels_the_commands_waiting_for_the_session(project: Path) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/mcp")
        await pilot.pause(0.05)
        await pilot.press("escape")
        await pilot.pause(0.05)
        assert "Cancelled while the session loads: /mcp" in _notices(app)
        release.set()
        await started(pilot)
        await settle(pilot)
        assert not isinstance(app.screen, McpScreen)


async def test_a_command_waiting_for_a_session_that_fails_says_there_is_none(
    project: Path,
) -> None:
    app = launch(project, "--no-session", "--model", "nope/nothing")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/mcp")
        await pilot.pause(0.05)
        release.set()
        await wait_for(pilot, lambda: app.startup is None, "the failed start-up")
        await wait_for(pilot, lambda: any(NO_SESSION in t for t in _notices(app)), "the notice")
        await settle(pilot)
        assert not isinstance(app.screen, McpScreen)


async def test_keys_after_a_waiting_command_go_to_its_screen(project: Path) -> None:
    """``/model⏎demo`` while loading: "demo" searches the picker once it opens, however
    long the start-up takes (more than a hold's 1 s here), not the composer before it."""
    from textual.widgets import Input

    from pitui.ui.widgets.key_gate import HOLD_AT_MOST_S

    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/model")
        await pilot.press(*"demo")
        await pilot.pause(HOLD_AT_MOST_S + 0.2)
        assert app.main.composer.text == ""
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker), "the model picker")
        await settle(pilot)
        assert app.screen.query_one(Input).value == "demo"
        assert app.main.composer.text == ""


async def test_keys_after_a_waiting_command_without_a_screen_go_to_the_composer(
    project: Path,
) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/name first")
        await pilot.press(*"more")
        await pilot.pause(0.1)
        assert app.main.composer.text == "more"
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: "Session name set: first" in _notices(app), "the name")
        await settle(pilot)
        assert app.main.composer.text == "more"
