"""The trust dialog and the first screen's listing of what is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from pitui.core.resources.loader import LoadedResources
from pitui.core.resources.skills import Skill
from pitui.core.resources.templates import PromptTemplate
from pitui.ui.screens.trust import TrustDialog, trust_listing
from pitui.ui.theme import discover_themes, fallback_variables
from pitui.ui.view.startup_listing import STARTER_KEYS, startup_lines


class _Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.answers: list[bool | None] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return fallback_variables()

    def compose(self) -> ComposeResult:
        yield Static("host")


@pytest.mark.parametrize(("key", "answer"), [("y", True), ("n", False), ("escape", None)])
async def test_the_dialog_answers(key: str, answer: bool | None, tmp_path: Path) -> None:
    assert discover_themes([]).themes
    app = _Host()
    async with app.run_test() as pilot:
        files = [tmp_path / ".pi" / "prompts" / "review.md"]
        app.push_screen(TrustDialog(tmp_path, files), app.answers.append)
        await pilot.pause()
        assert ".pi/prompts/review.md" in str(app.screen.query_one("#trust-files", Static).render())
        await pilot.press(key)
        await pilot.pause()
    assert app.answers == [answer]


def test_the_listing_names_a_few_files(tmp_path: Path) -> None:
    files = [tmp_path / f"f{i}.md" for i in range(10)]
    text = trust_listing(tmp_path, files)
    assert "f0.md" in text and "… and 2 more" in text


def test_startup_lines(tmp_path: Path) -> None:
    skill = Skill("hello", "Hi.", tmp_path / "s/SKILL.md", tmp_path / "s", "user")
    template = PromptTemplate("review", "Review", "x", tmp_path / "review.md", "user")
    resources = LoadedResources(skills=[skill], templates=[template], skipped=[tmp_path / "x"])
    lines = startup_lines(tmp_path, [tmp_path / "AGENTS.md"], resources)
    assert lines == [
        "Context   AGENTS.md",
        "Skills    hello",
        "Prompts   /review",
        "Skipped   1 project file (not trusted yet)",
        f"Keys      {STARTER_KEYS}",
    ]
    assert startup_lines(tmp_path, [], resources, quiet=True) == []
    assert startup_lines(tmp_path, [], resources, quiet="header") == [f"Keys      {STARTER_KEYS}"]
