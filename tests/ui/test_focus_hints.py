"""The status bar's key line follows the focus: the conversation selection (Tab,
Ctrl+Up) and the find bar (Ctrl+F) show their own keys, fitted at 80 columns
(issue 22 item 17)."""

from __future__ import annotations

from pathlib import Path

from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.status_bar import StatusBar
from tests.ui.command_support import (
    make_app,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
)
from tests.ui.conversation_support import session_on


def _hints(app: object) -> str:
    return app.main.query_one(StatusBar).part("hints")  # type: ignore[attr-defined,no-any-return]


async def test_the_selection_and_the_find_bar_show_their_keys_at_80_columns(
    tmp_path: Path,
) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "^B branches" in _hints(app)
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is app.main.conversation
        selection = _hints(app)
        assert "↑↓ select" in selection and selection.endswith("esc back"), selection
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.focused, Composer)
        assert "^B branches" in _hints(app)
        await pilot.press("ctrl+up")
        await settle(pilot)
        assert "↑↓ select" in _hints(app)
        await pilot.press("escape", "ctrl+f")
        await settle(pilot)
        find = _hints(app)
        assert "next" in find and find.endswith("esc close"), find
        await pilot.press("escape")
        await settle(pilot)
        assert "^B branches" in _hints(app)
        # Fitted beside the figures, never overlapping them.
        bar = app.main.query_one(StatusBar)
        used = sum(len(bar.part(name)) for name in ("usage", "context"))
        assert used + len(find) + 4 <= bar.size.width - 2
