"""The start-up snapshot: the first frame shows the facts the session will show."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.widgets import Static

from pitui import paths
from pitui.cli import build_parser
from pitui.ui.live import snapshot as startup_snapshot
from pitui.ui.live.snapshot import read_snapshot, snapshot_file, snapshot_key, write_snapshot
from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.status_bar import StatusBar
from tests.ui.flows import launch, started, wait_for
from tests.ui.test_flows_demo import slow_startup

FACTS = SessionInfo(
    cwd="/p", model_id="claude-x", thinking_level="high", context_window=200_000, demo=False
)


def key_for(cwd: Path, *argv: str) -> str | None:
    return snapshot_key(build_parser().parse_args(list(argv)), cwd)


def test_a_written_snapshot_reads_back_for_the_same_start(tmp_path: Path) -> None:
    key = key_for(tmp_path)
    write_snapshot(key, FACTS)
    info = read_snapshot(key, tmp_path)
    assert info is not None
    assert (info.model_id, info.thinking_level, info.context_window) == (
        "claude-x",
        "high",
        200_000,
    )
    assert info.cwd == str(tmp_path)  # the facts, not the old location
    assert snapshot_file().stat().st_mode & 0o777 == 0o600


def test_resumed_sessions_have_no_snapshot(tmp_path: Path) -> None:
    for flags in (["-c"], ["-r"], ["--session", "x.jsonl"]):
        assert key_for(tmp_path, *flags) is None
    write_snapshot(None, FACTS)  # nothing to do, no error
    assert not snapshot_file().exists()


def test_the_key_follows_what_the_resolution_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = key_for(tmp_path)
    assert key_for(tmp_path) == base
    assert key_for(tmp_path, "--model", "openai/gpt-5") != base
    assert key_for(tmp_path / "other") != base
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text('{"defaultModel": "x"}')
    with_settings = key_for(tmp_path)
    assert with_settings != base
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert key_for(tmp_path) != with_settings
    monkeypatch.setenv("UNRELATED_THING", "1")
    assert key_for(tmp_path) == key_for(tmp_path)


def test_the_key_is_never_stored_in_the_clear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    write_snapshot(key_for(tmp_path, "--api-key", "sk-other-secret"), FACTS)
    text = snapshot_file().read_text()
    assert "secret" not in text


def test_a_damaged_snapshot_file_is_ignored_then_replaced(tmp_path: Path) -> None:
    key = key_for(tmp_path)
    snapshot_file().parent.mkdir(parents=True, exist_ok=True)
    snapshot_file().write_text("{not json")
    assert read_snapshot(key, tmp_path) is None
    snapshot_file().write_text(json.dumps({key: {"model_id": 3}}))
    assert read_snapshot(key, tmp_path) is None
    write_snapshot(key, FACTS)
    assert read_snapshot(key, tmp_path) is not None


def test_only_the_newest_snapshots_are_kept(tmp_path: Path) -> None:
    for i in range(startup_snapshot.KEEP + 5):
        write_snapshot(f"k{i}", FACTS)
    stored = json.loads(snapshot_file().read_text())
    assert len(stored) == startup_snapshot.KEEP
    assert "k0" not in stored and f"k{startup_snapshot.KEEP + 4}" in stored


def test_an_unwritable_cache_costs_only_the_head_start(tmp_path: Path) -> None:
    snapshot_file().parent.parent.mkdir(parents=True, exist_ok=True)
    snapshot_file().parent.write_text("a file where the folder should be")
    write_snapshot(key_for(tmp_path), FACTS)  # logged, not raised
    assert read_snapshot(key_for(tmp_path), tmp_path) is None


def status_line(app: object) -> str:
    from pitui.ui.app import PituiApp

    assert isinstance(app, PituiApp)
    bar = app.main.query_one(StatusBar)
    return " | ".join(bar.part(name) for name in ("location", "model", "context"))


def branches_footer(app: object) -> str:
    from pitui.ui.app import PituiApp

    assert isinstance(app, PituiApp)
    return str(app.main.query_one("#branches-footer", Static).render())


async def test_the_second_start_draws_the_final_status_in_its_first_frame(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    first = launch(project, "--no-session")
    async with first.run_test(size=(140, 36)) as pilot:
        await started(pilot)
        attached = status_line(first)
        await wait_for(pilot, snapshot_file().exists, "the snapshot")
    assert "demo" in attached

    second = launch(project, "--no-session")
    release = slow_startup(second)
    async with second.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert status_line(second) == attached  # before the session exists
        assert branches_footer(second) == "No entries found  (0/0)"
        release.set()
        await started(pilot)
        assert status_line(second) == attached
        assert branches_footer(second) == "No entries found  (0/0)"


async def test_a_stale_snapshot_is_corrected_when_the_session_attaches(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    args = build_parser().parse_args(["--no-session"])
    write_snapshot(snapshot_key(args, project), FACTS)  # claims a model we do not have
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert "claude-x" in status_line(app)
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: "claude-x" not in status_line(app), "the real model")
        assert "demo" in status_line(app)


async def test_a_resumed_session_does_not_claim_an_empty_tree(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    app = launch(project, "-c")
    release = slow_startup(app)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert "No entries" not in branches_footer(app)
        assert "no model" in status_line(app)
        release.set()
        await started(pilot)


def test_the_snapshot_module_stays_light() -> None:
    """It runs before the first frame: no pydantic, no core session machinery."""
    import subprocess
    import sys

    code = (
        "import sys, pitui.ui.live.snapshot;"
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'pitui.core.session'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert done.stdout.strip() == "[]"


async def test_the_started_tui_prepares_the_first_request(tmp_path: Path) -> None:
    """The provider adapter is imported and an https endpoint's TLS context is under way
    once the session is up, so the first prompt waits for neither."""
    import sys

    from pitui.ai import tls
    from tests.ui.flows import write_models_json

    tls.reset()
    project = tmp_path / "project"
    project.mkdir()
    write_models_json("https://llm.example.invalid")
    app = launch(project, "--no-session", "--model", "fake-anthropic/fake-claude")
    try:
        async with app.run_test(size=(140, 36)) as pilot:
            await started(pilot)
            await wait_for(pilot, lambda: tls._thread is not None, "the TLS context")
            assert "pitui.ai.providers.anthropic" in sys.modules
    finally:
        tls.reset()


def notices(app: object) -> list[str]:
    from pitui.ui.app import PituiApp
    from pitui.ui.view.state import NoticeItem

    assert isinstance(app, PituiApp)
    return [i.text for i in app.chat.items if isinstance(i, NoticeItem)]


async def test_the_demo_notice_is_in_the_first_frame_of_a_second_start(tmp_path: Path) -> None:
    from pitui.ui.controllers.launcher import DEMO_HINT

    project = tmp_path / "project"
    project.mkdir()
    first = launch(project, "--no-session")
    async with first.run_test(size=(140, 36)) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: DEMO_HINT in notices(first), "the demo notice")
        await wait_for(pilot, snapshot_file().exists, "the snapshot")

    second = launch(project, "--no-session")
    release = slow_startup(second)
    async with second.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert notices(second) == [DEMO_HINT]  # before the session exists
        release.set()
        await started(pilot)
        await pilot.pause(0.2)
        assert notices(second) == [DEMO_HINT]  # once, not again when it attaches


async def test_a_stale_demo_snapshot_says_the_model_was_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.ui.controllers.launcher import DEMO_HINT

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    project = tmp_path / "project"
    project.mkdir()
    args = build_parser().parse_args(["--no-session"])
    stale = SessionInfo(cwd=str(project), model_id="demo", demo=True)
    write_snapshot(snapshot_key(args, project), stale)  # claims the demo; a key is set
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert notices(app) == [DEMO_HINT]
        release.set()
        await started(pilot)
        await wait_for(pilot, lambda: len(notices(app)) > 1, "the correction")
        assert "an API key was found after all" in notices(app)[-1]


def test_the_listing_reads_back_with_the_facts(tmp_path: Path) -> None:
    key = key_for(tmp_path)
    lines = ["Context   AGENTS.md", "Keys      / commands"]
    write_snapshot(key, FACTS, lines)
    assert startup_snapshot.read_listing(key) == lines
    write_snapshot(key, FACTS)  # a start that showed no listing forgets it
    assert startup_snapshot.read_listing(key) is None
    assert startup_snapshot.read_listing(None) is None


def listing_widget(app: object) -> object | None:
    from pitui.ui.app import PituiApp

    assert isinstance(app, PituiApp)
    found = app.main.query("#startup-listing")
    return found.first() if found else None


async def test_the_second_start_draws_the_listing_in_its_first_frame(tmp_path: Path) -> None:
    """What is loaded is on the first frame, and the attach leaves it alone (the same
    widget: the screen does not change once more)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("be brief\n")
    first = launch(project, "--no-session")
    async with first.run_test(size=(140, 36)) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: listing_widget(first) is not None, "the listing")
        shown = list(first.main.listing)
        await wait_for(pilot, snapshot_file().exists, "the snapshot")
    assert any(line.startswith("Context") and "AGENTS.md" in line for line in shown)

    second = launch(project, "--no-session")
    release = slow_startup(second)
    async with second.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        early = listing_widget(second)
        assert early is not None and second.main.listing == shown  # before the session
        release.set()
        await started(pilot)
        await pilot.pause(0.2)
        assert listing_widget(second) is early


async def test_a_stale_listing_is_replaced_when_the_session_attaches(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    args = build_parser().parse_args(["--no-session"])
    write_snapshot(snapshot_key(args, project), FACTS, ["Skills    gone-skill", "Keys      x"])
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert app.main.listing[0] == "Skills    gone-skill"
        release.set()
        await started(pilot)
        listing = app.main

        def replaced() -> bool:
            lines = listing.listing
            return bool(lines) and lines[-1].startswith("Keys") and "gone-skill" not in lines[0]

        await wait_for(pilot, replaced, "the loaded resources' listing")


async def test_a_prompt_typed_while_loading_takes_the_listing_away_for_good(
    tmp_path: Path,
) -> None:
    """The listing is in the first frame now, so a fast typist sends before the session
    is up: the listing goes with that prompt and the attach does not bring it back."""
    from tests.ui.flows import submit

    project = tmp_path / "project"
    project.mkdir()
    args = build_parser().parse_args(["--no-session"])
    write_snapshot(snapshot_key(args, project), FACTS, ["Keys      / commands"])
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert listing_widget(app) is not None
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: listing_widget(app) is None, "the listing gone")
        release.set()
        await started(pilot)
        live = app.live
        assert live is not None and live.facade is not None
        session = live.facade
        await wait_for(pilot, lambda: len(session.messages) >= 2, "the queued prompt's reply")
        await pilot.pause(0.3)
        assert listing_widget(app) is None and app.main.listing == []
