"""What start-up reports stays on screen after the session attaches (real app, demo model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui import paths
from pitui.ui.view.state import NoticeItem
from tests.core.session.test_damage import damaged_file
from tests.ui.flows import items_of, launch, make_project, started


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "1")


async def test_startup_problems_survive_the_session_attaching(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    paths.home().mkdir(parents=True, exist_ok=True)
    paths.keybindings_file().write_text('{"selectModel": 5}')
    paths.themes_dir().mkdir()
    (paths.themes_dir() / "broken.json").write_text('{"name": "broken"')
    session = damaged_file(tmp_path / "damaged.jsonl")
    app = launch(project, "--theme", "nosuch", "--model", "demo/demo", "--session", str(session))
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await pilot.pause(0.1)
        notices = [n.text for n in items_of(app, NoticeItem) if n.level == "warning"]
    joined = "\n".join(notices)
    assert "Unknown theme 'nosuch'" in joined
    assert "broken.json" in joined
    assert "selectModel" in joined and "expected a key or a list of keys" in joined
    assert any(n.startswith("Session file damaged: 3 lines skipped") for n in notices)


@pytest.mark.parametrize("name", ["settings.json", "models.json", "auth.json"])
async def test_a_config_file_that_is_not_utf8_is_a_notice_and_the_app_works(
    name: str, tmp_path: Path
) -> None:
    from pitui.ui.view.state import AssistantItem
    from tests.ui.flows import idle, submit

    project = make_project(tmp_path / "project")
    paths.home().mkdir(parents=True, exist_ok=True)
    (paths.home() / name).write_bytes(b'{"x": "\xff"}')
    app = launch(project, "--no-session")
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await submit(pilot, "hello")
        await idle(pilot)
        notices = [n.text for n in items_of(app, NoticeItem) if n.level == "warning"]
        replies = items_of(app, AssistantItem)
    assert any("not valid UTF-8" in n and name in n for n in notices), notices
    assert replies and "offline demo model" in replies[-1].text


async def test_a_session_open_in_another_pitui_opens_read_only(tmp_path: Path) -> None:
    import shutil

    from pitui.core.session.writer import SessionWriter
    from pitui.ui.widgets.composer import Composer
    from tests.ui.flows import submit

    project = make_project(tmp_path / "project")
    fixture = Path(__file__).parents[1] / "fixtures" / "pi-oracle" / "before-compaction.v3.jsonl"
    path = tmp_path / "held.jsonl"
    shutil.copy(fixture, path)
    before = path.read_bytes()
    holder = await SessionWriter.open(path)  # "another pitui" holds the lock
    try:
        app = launch(project, "--model", "demo/demo", "--session", str(path))
        async with app.run_test(size=(120, 36)) as pilot:
            await started(pilot)
            await pilot.pause(0.05)
            notices = [n.text for n in items_of(app, NoticeItem)]
            assert any(
                "open for writing in another pitui process: opened read-only" in n for n in notices
            ), notices
            await submit(pilot, "hello")
            await pilot.pause(0.2)
            # Refused before it is sent: a warning, and the text stays (issue 22 item 16).
            warnings = [n.text for n in items_of(app, NoticeItem) if n.level == "warning"]
            assert any("your text stays in the composer" in w for w in warnings), warnings
            assert app.main.query_one(Composer).text == "hello"
    finally:
        await holder.close()
    assert path.read_bytes() == before


async def test_a_session_whose_model_is_unknown_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22 item 18: an imported pi session on a model pitui does not know."""
    from tests.core.test_model_notice import NOTICE, _pi_session

    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    project = make_project(tmp_path / "project")
    app = launch(project, "--session", str(_pi_session(tmp_path)))
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await pilot.pause(0.05)
        notices = [n.text for n in items_of(app, NoticeItem)]
        assert NOTICE in notices, notices
