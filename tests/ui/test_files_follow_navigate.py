"""Enter on a tree row whose files differ: one chooser, pi's summary choices with
**Restore files (N)** and the preview beside them (no second dialog)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from pitui.core.agent_session import AgentSession
from pitui.ui.screens.files_restore import FilesPreview, RestoreFilesQuestion
from pitui.ui.screens.navigate import SummaryChooser
from pitui.ui.widgets.status_bar import StatusBar
from tests.core.checkpoints.helpers import fast_demo, make_project  # noqa: F401  (autouse)
from tests.ui.command_support import notices, settle, wait_until
from tests.ui.files_follow_support import (
    NEW,
    OLD,
    app_py,
    demo_session,
    open_chooser,
    running,
    two_points,
)
from tests.ui.test_branches import select


def _at(session: AgentSession, entry_id: str) -> bool:
    """The navigation happened: its new leaf is the chosen entry."""
    return session.store.get_leaf_id() == entry_id


async def _moved(pilot: Pilot[None], session: AgentSession, entry_id: str) -> None:
    await wait_until(pilot, lambda: _at(session, entry_id), "moved")
    await settle(pilot)


def _options(screen: SummaryChooser) -> list[str]:
    from textual.widgets import OptionList

    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_chooser_offers_restore_files_and_a_preview(tmp_path: Path) -> None:
    project, session, first_reply = await two_points(tmp_path)
    async with running(session, tmp_path) as (app, pilot):
        screen = await open_chooser(pilot, first_reply)
        assert _options(screen) == [
            "No summary",
            "Summarize",
            "Summarize with custom prompt",
            "[x] Restore files (1)",
            "Preview the file changes",
        ]
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, FilesPreview), "the preview")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, "back at the chooser")
        await pilot.press("enter")  # No summary (the files come along)
        await _moved(pilot, session, first_reply)
        assert not any(isinstance(s, RestoreFilesQuestion) for s in app.screen_stack)
        assert any(n.startswith("Restored 1 file") for n in notices(app))
    assert app_py(project) == OLD


async def test_restore_files_off_keeps_them(tmp_path: Path) -> None:
    project, session, first_reply = await two_points(tmp_path)
    async with running(session, tmp_path) as (app, pilot):
        screen = await open_chooser(pilot, first_reply)
        await pilot.press("r")
        assert _options(screen)[3].startswith("[ ] Restore files (1)")
        await pilot.press("enter")  # No summary
        await _moved(pilot, session, first_reply)
        assert not any(n.startswith("Restored") for n in notices(app))
    assert app_py(project) == NEW


async def test_escape_in_the_chooser_changes_nothing(tmp_path: Path) -> None:
    project, session, first_reply = await two_points(tmp_path)
    leaf = session.store.get_leaf_id()
    async with running(session, tmp_path) as (_, pilot):
        await open_chooser(pilot, first_reply)
        await pilot.press("escape")
        await settle(pilot)
        assert session.store.get_leaf_id() == leaf
    assert app_py(project) == NEW


async def test_a_choice_before_the_files_are_known_waits_for_them(tmp_path: Path) -> None:
    """Enter pressed as the chooser opens (a burst of keys): the move waits for the
    comparison and keeps the default, so the files come along."""
    project, session, first_reply = await two_points(tmp_path)
    async with running(session, tmp_path) as (_, pilot):
        await select(pilot, first_reply)
        await pilot.press("enter", "enter")
        await _moved(pilot, session, first_reply)
    assert app_py(project) == OLD


async def test_same_files_offer_nothing(tmp_path: Path) -> None:
    project, session, first_reply = await two_points(tmp_path)
    (project / "app.py").write_text(OLD)  # as at the target already
    async with running(session, tmp_path) as (_, pilot):
        screen = await open_chooser(pilot, first_reply)
        await pilot.pause(0.05)  # (the move's worker waits for the chooser: no settle)
        assert len(_options(screen)) == 3
        await pilot.press("escape")


async def test_files_edited_outside_pitui_show_after_the_next_reply(tmp_path: Path) -> None:
    """A reply with no tool records no checkpoint; once it ends, the status bar says the
    working tree is no longer the current point's checkpoint."""

    from tests.ui.command_support import submit

    project, session, _ = await two_points(tmp_path)
    async with running(session, tmp_path) as (app, pilot):
        bar = app.query_one(StatusBar)
        assert "files differ" not in bar.part("location")
        (project / "app.py").write_text("port = 7070\n")  # in the user's editor
        await submit(pilot, "hello again")
        await wait_until(pilot, lambda: "files differ" in bar.part("location"), "the mark")


async def test_keystrokes_echo_while_a_large_checkpoint_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first checkpoint of a project of 1,500 files (~30 MB) runs in git and in
    threads: the composer shows what is typed before it is done. (Each file's packing is
    slowed down a little, as on a slow disk, so that the checkpoint surely outlasts the
    keys.)"""
    import asyncio
    import os
    import time

    from textual import events

    from pitui.core.checkpoints import pack_writer
    from pitui.ui.widgets.composer import Composer

    pack_one = pack_writer._pack_one

    def slow_pack_one(full: str, limit: int) -> object:
        time.sleep(0.001)
        return pack_one(full, limit)

    monkeypatch.setattr(pack_writer, "_pack_one", slow_pack_one)

    project = make_project(tmp_path / "p", {"app.py": OLD})
    block = os.urandom(20_000)
    for index in range(1500):
        folder = project / f"pkg{index % 15}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{index}.bin").write_bytes(block[index:] + index.to_bytes(4, "big"))
    session = await demo_session(project, tmp_path / "sessions")
    async with running(session, tmp_path) as (app, _):
        composer = app.query_one(Composer)
        composer.focus()
        work = asyncio.ensure_future(session.checkpoints.checkpoint("manual"))
        await asyncio.sleep(0.05)
        # Keys posted as a terminal would send them, polled with plain sleeps (Pilot's
        # own pauses wait for the process to go idle, which the packing threads delay).
        for character in "abc":
            composer.post_message(events.Key(character, character))
        for _ in range(200):
            if composer.text == "abc" or work.done():
                break
            await asyncio.sleep(0.005)
        shown = composer.text == "abc"
        still_running = not work.done()
        assert await work is not None
        assert shown and still_running, (shown, still_running)


async def test_files_known_before_the_chooser_is_shown_are_offered(tmp_path: Path) -> None:
    """A fast comparison can finish before the chooser is composed: its rows are there."""
    from pitui.core.checkpoints.file_diffs import FileDiff

    _, session, _ = await two_points(tmp_path)
    async with running(session, tmp_path) as (app, pilot):
        screen = SummaryChooser("user: x", files_pending=True)
        screen.offer_files([FileDiff("app.py", "modified", "-1 a\n+1 b", "--- a\n+++ b")])
        app.push_screen(screen)
        await wait_until(pilot, lambda: app.screen is screen, "the chooser")
        await pilot.pause()
        assert _options(screen)[3:] == ["[x] Restore files (1)", "Preview the file changes"]


@pytest.mark.parametrize(("setting", "expected"), [("always", "9090"), ("never", "8080")])
async def test_the_restore_setting_skips_the_question(
    tmp_path: Path, setting: str, expected: str
) -> None:
    """``checkpoints.restore``: "always" brings the files without asking, "never" leaves
    them; either way the chooser offers only pi's summary choices."""
    project, session, first_reply = await two_points(tmp_path)
    session.settings.checkpoints.restore = setting  # type: ignore[assignment]
    async with running(session, tmp_path) as (_, pilot):
        screen = await open_chooser(pilot, first_reply)
        assert len(_options(screen)) == 3
        await pilot.press("enter")  # No summary
        await _moved(pilot, session, first_reply)
    assert app_py(project) == f"port = {expected}\n"


async def test_keys_after_alt_arrow_reach_the_restore_question(tmp_path: Path) -> None:
    """Alt+← and Enter in one burst: the switch compares the files before it asks, and
    the Enter waits for the question (Restore files) instead of reaching the composer."""
    project, session, first_reply = await two_points(tmp_path)
    comparison = await session.checkpoints.comparison_for(first_reply)
    assert comparison is not None
    await session.checkpoints.restore(comparison.point)
    await session.navigate(first_reply)
    await session.prompt("other")  # a sibling of "again", on the old files
    assert app_py(project) == OLD
    async with running(session, tmp_path) as (app, pilot):
        from textual import events

        # Posted at once, as a terminal sends a burst (Pilot's press waits between keys).
        app.post_message(events.Key("alt+left", None))
        app.post_message(events.Key("enter", "\r"))
        await wait_until(pilot, lambda: app_py(project) == NEW, "the sibling's files")
        await settle(pilot)
