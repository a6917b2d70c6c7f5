"""The view model and reducer are plain Python: importing them must not load Textual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_reducer_does_not_import_textual() -> None:
    code = (
        "import sys, pitui.ui.view.reducer, pitui.ui.view.state, pitui.ui.view.events;"
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


FIRST_FRAME = """
import os, sys
from pitui.cli import build_parser
from pitui.ui.app import PituiApp
from pitui.ui.launch import create_app

shown = []

async def done(self):
    shown.append(self.main.conversation.item_count)
    self.exit()

PituiApp._after_first_frame = done
app = create_app(build_parser().parse_args([]))
app.run(headless=True, size=(140, 40))
assert shown and shown[0] >= 1, "the demo notice is in the first frame"
late = [name for name in LATE if name in sys.modules]
assert not late, f"loaded before the first frame: {late}"
"""
LATE = (
    "aiofiles",  # file I/O of the core
    "pitui.core.system_prompt",  # the prompt builder: the first-run check needs paths only
    "pitui.core.resources.skills",
    "pitui.ui.md_render",  # markdown: with the first reply
    "pitui.ui.widgets.messages",  # the other item widgets: the notice's comes alone
    "pitui.ui.widgets.assistant_text",
    "pitui.ui.widgets.tool_card",  # with the first tool call
    "pitui.ui.widgets.tool_renderers",
    # The composer (Textual's TextArea, its document and themes): the first frame draws
    # its stand-in (widgets/composer_parts.py); the real one is mounted right after.
    "pitui.ui.widgets.composer",
    "textual.widgets._text_area",
    "textual.document._document",
    "textual._text_area_theme",
    "msgspec",  # the core's structs: the first-run check's folder list is plain classes
)


def test_a_first_run_draws_its_notice_without_the_item_widgets(tmp_path: Path) -> None:
    """A first start with nothing configured shows the demo notice in frame 1: only the
    notice's widget is loaded for it, and the first-run check reads paths, not the core."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "PITUI_HOME": str(home / ".pitui")}
    code = f"LATE = {LATE!r}\n{FIRST_FRAME}"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=project, env=env, timeout=60)
