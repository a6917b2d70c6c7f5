"""The composer's file tools: the ``@`` finder, Tab path completion, images, Ctrl+G."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image
from textual.pilot import Pilot

from pitui.core.attachments.images import pending_image
from pitui.ui.app import PituiApp
from pitui.ui.widgets.attachment_chips import AttachmentBar
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.composer_tools import image_path_in
from pitui.ui.widgets.suggestions import SuggestionList
from tests.ui.harness import FeedSource, burst, make_app, wait_subscribed


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in ["README.md", "src/app.py", "src/core/read.py", "docs/guide.md"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    return root


async def _ready(pilot: Pilot[None], source: FeedSource, project: Path) -> Composer:
    await wait_subscribed(pilot, source)
    composer = pilot.app.query_one(Composer)
    composer.project_root = project
    composer.focus()
    await pilot.pause()
    return composer


async def _until(pilot: Pilot[None], check: object) -> None:
    for _ in range(200):
        if callable(check) and check():
            return
        await pilot.pause(0.02)
    raise AssertionError("timed out")


async def test_at_opens_the_finder_and_tab_picks_a_file(project: Path) -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = await _ready(pilot, source, project)
        await pilot.press("s", "e", "e", "space", "@", "R", "E", "A")
        suggestions = app.query_one(SuggestionList)
        await _until(pilot, lambda: suggestions.active)
        assert suggestions.selected is not None and suggestions.selected.label == "README.md"
        await pilot.press("tab")
        assert composer.text == "see @README.md "
        assert not suggestions.active
        await pilot.press("@", "g", "u", "i", "enter")  # Enter picks too, and does not send
        await _until(pilot, lambda: composer.text.endswith("@docs/guide.md "))
        assert composer.text == "see @README.md @docs/guide.md "


async def test_enter_in_a_burst_picks_from_the_finder_for_the_word_as_typed(
    project: Path,
) -> None:
    """``@`` shows every file; ``gui`` and Enter come in one burst, ahead of the list's
    refresh: Enter picks ``docs/guide.md`` (the match for ``@gui``), not the first file."""
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = await _ready(pilot, source, project)
        await pilot.press("@")
        suggestions = app.query_one(SuggestionList)
        await _until(pilot, lambda: suggestions.active)
        assert suggestions.selected is not None and suggestions.selected.label != "docs/guide.md"
        burst(app, "g", "u", "i", "enter")
        for _ in range(10):  # the burst, then what the list does after it
            await pilot.pause(0.02)
        assert composer.text == "@docs/guide.md "


async def test_tab_completes_paths_and_stays_in_the_composer(project: Path) -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = await _ready(pilot, source, project)
        await pilot.press("r", "e", "a", "d", "space", "s", "r", "tab")
        await _until(pilot, lambda: composer.text == "read src/")
        assert app.focused is composer
        await pilot.press("tab")  # app.py and core/: several, offered in the list
        suggestions = app.query_one(SuggestionList)
        await _until(pilot, lambda: suggestions.active)
        assert [s.label for s in suggestions.items] == ["app.py", "core/"]
        await pilot.press("down", "tab")
        assert composer.text == "read src/core/"
        assert app.focused is composer
        composer.clear()
        await pilot.press("tab")  # an empty composer: Tab moves on, as before
        assert app.focused is not composer


async def test_images_wait_as_removable_chips_and_go_with_the_prompt(
    project: Path, tmp_path: Path
) -> None:
    Image.new("RGB", (8, 8), (0, 0, 255)).save(project / "shot.png")
    raw = (project / "shot.png").read_bytes()
    source = FeedSource()
    app = make_app(source)
    sent: list[Composer.Submitted] = []
    async with app.run_test(size=(100, 30)) as pilot:
        composer = await _ready(pilot, source, project)
        composer.attachments_enabled = True
        composer.add_image(await pending_image(raw, "image/png", "one.png"))
        composer.add_image(await pending_image(raw, "image/png", "two.png"))
        await pilot.pause()
        bar = app.query_one(AttachmentBar)
        assert list(bar.labels) == ["[image] one.png", "[image] two.png"]
        await pilot.press("backspace")  # at the very start: removes the last chip
        await pilot.pause()
        assert list(bar.labels) == ["[image] one.png"]
        assert isinstance(app, PituiApp)
        post = composer.post_message

        def capture(message: object) -> bool:
            if isinstance(message, Composer.Submitted):
                sent.append(message)
                return True
            return post(message)  # type: ignore[arg-type]

        composer.post_message = capture  # type: ignore[method-assign]
        composer.load_text("what is this")
        composer.submit()
        await pilot.pause()
    [message] = sent
    assert message.text == "what is this" and len(message.images) == 1
    shown = Image.open(io.BytesIO(base64.b64decode(message.images[0].data)))
    assert shown.size == (8, 8)


def test_a_pasted_image_path_is_recognised(tmp_path: Path) -> None:
    assert image_path_in("'/a b/shot.PNG'\n", tmp_path) == Path("/a b/shot.PNG")
    assert image_path_in("file:///x/y.webp", tmp_path) == Path("/x/y.webp")
    assert image_path_in("shots/a.png", tmp_path) == tmp_path / "shots/a.png"
    assert image_path_in("notes.txt", tmp_path) is None
    assert image_path_in("a.png\nb.png", tmp_path) is None


async def test_ctrl_g_without_an_editor_says_how_to_set_one(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = await _ready(pilot, source, project)
        composer.load_text("draft")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert any("set $VISUAL or $EDITOR" in n.message for n in app._notifications)
        assert composer.text == "draft"


async def test_a_pasted_image_path_becomes_a_chip(project: Path) -> None:
    from textual import events

    Image.new("RGB", (8, 8), (0, 255, 0)).save(project / "shot.png")
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        composer = await _ready(pilot, source, project)
        composer.attachments_enabled = True
        driver = app._driver
        assert driver is not None
        driver.send_message(events.Paste("shot.png"))  # as a terminal's paste arrives
        await _until(pilot, lambda: len(composer.images) == 1)
        assert composer.text == ""
        driver.send_message(events.Paste("notes about shot"))
        await _until(pilot, lambda: composer.text == "notes about shot")
