"""Markdown as styled text (pi's md tokens), and the streaming widget that freezes blocks."""

from __future__ import annotations

from textual.widgets import Static

from pitui.ui import md_render
from pitui.ui.view.state import AssistantItem
from pitui.ui.widgets.assistant_text import AssistantMarkdown
from tests.ui.harness import FeedSource, make_app


def test_blocks_render_as_pi_draws_them() -> None:
    source = (
        "# Title\n\nSome *em* and **bold** with `code` and [a link](https://x.dev).\n\n"
        "- one\n- two\n  1. nested\n\n> quoted\n\n```py\nprint(1)\n```\n\n---\n\n"
        "| a | bb |\n|---|----|\n| 1 | 2 |\n"
    )
    plain = md_render.render(source).plain.split("\n")
    assert plain[0] == "Title"
    assert plain[2] == "Some em and bold with code and a link (https://x.dev)."
    assert plain[4:7] == ["- one", "- two", "  1. nested"]
    assert plain[8] == "│ quoted"
    assert plain[10:13] == ["```py", "print(1)", "```"]
    assert plain[14] == "─" * md_render.HR_WIDTH
    assert plain[16:] == ["a │ bb", "──┼───", "1 │ 2 "]


def test_styles_are_pi_theme_tokens() -> None:
    content = md_render.render("## Head\n\nuse `x`")
    styles = {str(span.style) for span in content.spans}
    assert "bold $pi-mdHeading" in styles and "$pi-mdCode" in styles


def test_block_starts() -> None:
    tokens = md_render.parse("a\n\nb\nc\n\n- x\n- y\n")
    assert md_render.block_starts(tokens) == [0, 2, 5]


async def test_streaming_text_freezes_finished_blocks() -> None:
    app = make_app(FeedSource())
    paragraphs = [f"Paragraph {n} says something." for n in range(20)]
    async with app.run_test(size=(100, 30)) as pilot:
        widget = AssistantMarkdown(AssistantItem("m1.0", "m1", "", streaming=True))
        await app.main.conversation.mount(widget)
        text = ""
        for paragraph in paragraphs:
            text += paragraph + "\n\n"
            await widget.update_item(AssistantItem("m1.0", "m1", text, streaming=True))
        await pilot.pause()
        parts = list(widget.children)
        assert len(parts) > 2  # frozen groups plus the live tail
        shown = "\n\n".join(str(p.render()) for p in parts if isinstance(p, Static))
        assert [ln for ln in shown.split("\n") if ln] == paragraphs
        await widget.update_item(AssistantItem("m1.0", "m1", "rewritten", streaming=False))
        await pilot.pause()
        assert len(widget.children) == 1 and widget.shown_text == "rewritten"
