"""A streamed line costs the screen one layout, and what it draws is what a full layout would.

The live tail, its reply and the conversation pane take a ``virtual_size`` that asks for no
second layout (:mod:`pitui.ui.widgets.laid_out`): Textual's asks for another one each time
the layout sets it, so every line a reply grew by cost two. The pane hands its scrollbar
the new size itself; these tests check that nothing is left stale, whether the pane is
anchored at its end (a long session) or follows it by scrolling (a short one).
"""

from __future__ import annotations

import pytest
from textual._compositor import Compositor

from pitui.ui.app import PituiApp
from pitui.ui.widgets.assistant_text import AssistantMarkdown
from pitui.ui.widgets.conversation import ConversationView
from tests.ui.harness import FeedSource, freeze, make_app, settle
from tests.ui.script import Script

LINES = 12


def history(n: int) -> Script:
    s = Script().start()
    for k in range(n):
        s.user(f"question {k}").assistant().text(f"answer {k}").end()
    return s.agent_end()


def streaming_reply() -> Script:
    """A reply whose deltas each add a line (list items), then one ending mid-line."""
    chunks = [f"- item {k}\n" for k in range(LINES)]
    return Script().start().user("list them").assistant().text(*chunks, end=False)


async def _screen_after_full_layout(app: PituiApp, pilot: object) -> tuple[str, str]:
    """The screen as drawn, and as drawn after a layout of everything from scratch."""
    freeze(app)
    before = app.export_screenshot()
    app.screen.refresh(layout=True)
    for widget in app.screen.walk_children():
        widget.refresh(layout=True)
    await settle(pilot)  # type: ignore[arg-type]
    return before, app.export_screenshot()


@pytest.mark.parametrize("earlier", [3, 40], ids=["short-follows", "long-anchored"])
async def test_each_streamed_line_is_one_layout(
    earlier: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    layouts = 0
    original = Compositor.reflow

    def counting(self: Compositor, *args: object, **kwargs: object) -> object:
        nonlocal layouts  # full layouts (a scroll's reflow_visible is not one)
        layouts += 1
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Compositor, "reflow", counting)
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 20)) as pilot:
        source.emit(history(earlier).events)
        await settle(pilot)
        script = streaming_reply()
        deltas = script.events[-LINES:]
        source.emit(script.events[:-LINES])  # the run, the question, the reply's start
        await settle(pilot)
        pane = app.query_one(ConversationView)
        reply = pane.query(AssistantMarkdown).last()
        per_line: list[int] = []
        for k, delta in enumerate(deltas):
            layouts = 0
            source.emit([delta])
            await settle(pilot)
            per_line.append(layouts)
            assert reply.shown_text.endswith(f"- item {k}\n")
            assert pane.scroll_y == pane.max_scroll_y > 0  # still following the end
            assert pane.vertical_scrollbar.window_virtual_size == pane.virtual_size.height
        assert max(per_line) == 1, per_line  # Textual's own virtual_size made it 2
        before, after = await _screen_after_full_layout(app, pilot)
        assert before == after
