"""Flows of the real app with a real AgentSession on the offline demo model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Static

from pitui.core.approval_store import read_approvals
from pitui.ui.app import PituiApp
from pitui.ui.controllers.prompt import LOADING_NOTICE
from pitui.ui.live.session import LiveSession
from pitui.ui.screens.approval import ApprovalScreen
from pitui.ui.view.state import (
    ApprovalItem,
    AssistantItem,
    BashItem,
    NoticeItem,
    ToolCardItem,
    UserItem,
)
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.status_bar import StatusBar
from tests.ui.flows import (
    CONFIG_TS,
    approval,
    idle,
    items_of,
    launch,
    make_project,
    started,
    submit,
    wait_for,
)

EDIT_PROMPT = "change 3000 to 8080 in src/config.ts"


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "1")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def _status(app: object, part: str) -> str:
    from textual.app import App

    assert isinstance(app, App)
    return app.query_one(StatusBar).part(part)


async def test_launch_status_and_approved_edit(project: Path) -> None:
    app = launch(project)
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await pilot.pause(0.05)
        assert "demo • thinking off • demo (offline)" in _status(app, "model")
        assert _status(app, "location").endswith("project")
        notices = [i.text for i in items_of(app, NoticeItem)]
        assert any("offline demo model" in n for n in notices)
        await submit(pilot, EDIT_PROMPT)
        modal = await approval(pilot)
        body = str(modal.query_one("#approval-body", Static).content)
        assert "-1 export const port = 3000;" in body and "+1 export const port = 8080;" in body
        assert "edit" in str(modal.query_one("#approval-title", Static).content)
        pending = items_of(app, ApprovalItem)
        assert [i.status for i in pending if isinstance(i, ApprovalItem)] == ["pending"]
        await pilot.press("y")
        await idle(pilot)
        assert (project / "src" / "config.ts").read_text() == "export const port = 8080;\n"
        [item] = items_of(app, ApprovalItem)
        assert isinstance(item, ApprovalItem) and item.status == "allowed"
        [card] = items_of(app, ToolCardItem)
        assert isinstance(card, ToolCardItem) and card.state == "success"
        replies = items_of(app, AssistantItem)
        assert "scripted summary" in replies[-1].text
        assert "↑" in _status(app, "usage")
        assert _status(app, "context").endswith("/128k (auto)")


async def test_always_remembers_for_the_project(project: Path) -> None:
    app = launch(project, "--no-session")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, EDIT_PROMPT)
        await approval(pilot)
        await pilot.press("a")
        await idle(pilot)
        await submit(pilot, "change 8080 to 9090 in src/config.ts")
        await idle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
    assert (project / "src" / "config.ts").read_text() == "export const port = 9090;\n"
    assert read_approvals(project)[0].tools == ["edit"]
    assert not (project / ".pitui" / "settings.json").exists()


async def test_abort_while_the_modal_is_open_denies(project: Path) -> None:
    app = launch(project, "--no-session")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, EDIT_PROMPT)
        await approval(pilot)
        assert app.live is not None
        app.live.port.abort()  # e.g. from the command palette
        await idle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen), "modal closed")
        [item] = items_of(app, ApprovalItem)
        assert isinstance(item, ApprovalItem) and item.status == "denied"
        [card] = items_of(app, ToolCardItem)
        assert isinstance(card, ToolCardItem) and card.state == "denied"
    assert (project / "src" / "config.ts").read_text() == CONFIG_TS


async def test_shift_tab_cycles_thinking_and_colours_the_composer(project: Path) -> None:
    app = launch(project, "--no-session")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        composer = app.query_one(Composer)
        await wait_for(pilot, lambda: composer.has_class("-thinking-off"), "level class")
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: composer.has_class("-thinking-minimal"), "next level")
        assert "demo • minimal" in _status(app, "model")
        assert app.focused is composer
        await pilot.press("shift+tab", "shift+tab")
        await wait_for(pilot, lambda: "demo • medium" in _status(app, "model"), "medium")
        assert isinstance(app.live, LiveSession)
        await app.live.session.set_name("Port work")
        await wait_for(pilot, lambda: "• Port work" in _status(app, "location"), "name")
        off_colour = composer.styles.border_top[1]
        composer.load_text("!ls")
        await pilot.pause()
        assert composer.has_class("-bash") and composer.styles.border_top[1] != off_colour


async def test_bash_command_and_abort_mid_stream(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = launch(project, "--no-session")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await submit(pilot, "!echo hi-from-bash")
        await wait_for(pilot, lambda: items_of(app, BashItem), "the ! command")
        await wait_for(pilot, lambda: not app.chat.bash_id, "the ! command to end")
        [bash] = items_of(app, BashItem)
        assert isinstance(bash, BashItem) and bash.output.strip() == "hi-from-bash"
        monkeypatch.setenv("PITUI_DEMO_PACE_MS", "40")
        await submit(pilot, "tell me about this project in detail")
        await wait_for(pilot, lambda: items_of(app, AssistantItem), "the reply to stream")
        await submit(pilot, "queued steer")
        await wait_for(pilot, lambda: app.chat.steering, "the queue")
        await pilot.press("escape")
        await idle(pilot)
        assert app.query_one(Composer).text == "queued steer"
        notices = [i.text for i in items_of(app, NoticeItem)]
        assert notices[-1] == "Operation aborted"
        assert not app.chat.steering
        users = [i.text for i in items_of(app, UserItem) if isinstance(i, UserItem)]
        assert users == ["tell me about this project in detail"]


async def test_initial_prompt_from_the_command_line(project: Path) -> None:
    app = launch(project, "--no-session", "hello", "there")
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: len(items_of(app, UserItem)) == 2, "both prompts")
        await idle(pilot)
        assert [u.text for u in items_of(app, UserItem)] == ["hello", "there"]
        assert not items_of(app, ApprovalItem)


async def test_startup_errors_and_warnings_are_notices(project: Path) -> None:
    settings = project / ".pitui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"approval": {"mode": 5}}')
    app = launch(project, "--no-session", "--model", "nope/nothing")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: items_of(app, NoticeItem), "the notices")
        await pilot.pause(0.05)
        notices = [(n.level, n.text) for n in items_of(app, NoticeItem)]
        assert notices[0][0] == "warning" and "approval.mode" in notices[0][1]
        assert notices[-1] == (
            "error",
            'Error: Model "nope/nothing" not found. Use --list-models to see available models.',
        )
        assert app.live is None and app.startup is None


async def test_a_prompt_sent_while_the_session_loads_is_queued_then_sent(project: Path) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "early words")
        await submit(pilot, "and more")
        await pilot.pause()
        assert app.query_one(Composer).text == ""
        assert app.chat.follow_up == ("early words", "and more")
        await pilot.press("alt+up")  # take them back, as with any queue
        await pilot.pause()
        assert app.query_one(Composer).text == "early words\n\nand more"
        assert not app.chat.follow_up
        await submit(pilot, "early words")
        await submit(pilot, "and more")
        await pilot.pause()
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: len(items_of(app, UserItem)) == 2, "both prompts")
        await idle(pilot)
        assert [u.text for u in items_of(app, UserItem)] == ["early words", "and more"]
        assert not app.chat.follow_up


async def test_a_bang_command_while_the_session_loads_keeps_the_text(project: Path) -> None:
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "!ls")
        await pilot.pause()
        assert app.query_one(Composer).text == "!ls"
        from pitui.ui.controllers.launcher import DEMO_HINT

        texts = [n.text for n in items_of(app, NoticeItem)]
        # The demo's notice may be in the first frame already (nothing is configured).
        assert texts[-1] == LOADING_NOTICE and set(texts[:-1]) <= {DEMO_HINT}
        release.set()
        await started(pilot)


async def test_prompts_queued_for_a_session_that_fails_go_back_to_the_composer(
    project: Path,
) -> None:
    app = launch(project, "--no-session", "--model", "nope/nothing")
    release = slow_startup(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "early words")
        await pilot.pause()
        release.set()
        await pilot.pause()
        while app.startup is not None:
            await pilot.pause(0.01)
        assert app.query_one(Composer).text == "early words"
        assert app.chat.follow_up == ()
        assert items_of(app, UserItem) == []


def slow_startup(app: PituiApp) -> asyncio.Event:
    """Hold the app's session start until the returned event is set."""
    original = app.startup
    assert original is not None
    loading = asyncio.Event()

    async def slow_start(target: PituiApp) -> None:
        await loading.wait()
        await original(target)

    app.startup = slow_start
    return loading
