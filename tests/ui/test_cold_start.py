"""Cold start: what the first frame needs, and what waits until after it.

The TUI's first screen (empty panes, composer, status bar) must not pay for modules,
stylesheets and widgets that only items, the palette or a session need; these tests keep
the deferred parts deferred and check that they still arrive when needed.
"""

from __future__ import annotations

import subprocess
import sys

from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.item_styles import ITEM_STYLESHEETS
from pitui.ui.widgets.suggestions import SuggestionList
from tests.ui.harness import FeedSource, make_app, settle
from tests.ui.script import demo_conversation

NOT_FIRST_FRAME = (
    "pitui.ui.view.state",  # the item classes (ChatState lives in pitui.ui.view.chat_state)
    "pitui.ui.view.reducer",
    "pitui.ui.commands.palette",
    # The action table is first-frame (bindings are class attributes); what runs the
    # commands and the controllers are built on first use.
    "pitui.ui.commands.dispatch",
    "pitui.ui.controllers.prompt",
    "pitui.ui.controllers.keys",
    "pitui.ui.controllers.branches",
    "pitui.ui.widgets.suggestions",
    "pitui.ui.widgets.composer",  # mounted after frame 1, in its stand-in's place
    "textual.widgets._text_area",
    "pitui.ui.widgets.base",
    "pitui.ui.widgets.messages",
    "pitui.ui.widgets.tool_card",
    "pitui.ai",
    "pitui.core.agent_session",
    "aiofiles",
    "httpx",
    "pydantic",
    "msgspec",
    "hashlib",  # OpenSSL's load: the start-up fingerprints use pitui.digests
    "argparse",  # a bare ``pitui`` is read from the flag table (pitui.cli_options)
    "gettext",
)


def test_the_tui_modules_leave_later_parts_unimported() -> None:
    code = (
        "import sys, pitui.cli\n"
        # What pitui.cli installs before Textual's widgets load, as a start does.
        "from pitui.ui import subclassing, strip_caches\n"
        "subclassing.install(); strip_caches.install()\n"
        "import pitui.ui.app, pitui.ui.launch\n"
        f"late = [m for m in {NOT_FIRST_FRAME!r} if m in sys.modules]\n"
        "assert not late, late\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_item_stylesheets_and_the_suggestion_list_arrive_when_needed() -> None:
    source = FeedSource()
    app = make_app(source)
    item_sheets = list(ITEM_STYLESHEETS)

    def loaded() -> list[str]:
        sources = [path for path, _ in app.stylesheet.source]
        return [name for name in item_sheets if any(p.endswith(name) for p in sources)]

    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert loaded() == []  # an empty conversation needs no item styles
        assert app.main.query_one(SuggestionList).display is False  # mounted after frame 1
        assert app.main.query_one(Composer).has_focus
        source.emit(demo_conversation())
        await settle(pilot)
        assert loaded() == item_sheets
