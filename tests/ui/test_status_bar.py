"""Status bar texts as pi's footer words them."""

from __future__ import annotations

from pitui.core.usage import UsageTotals
from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.status_bar import context_text, location_text, model_text, usage_text


def test_location_and_model() -> None:
    info = SessionInfo(cwd="/srv/p", git_branch="main", session_name="Port work")
    assert location_text(info) == "/srv/p (main) • Port work"
    assert model_text(SessionInfo(model_id="gpt-5", thinking_level="off")) == "gpt-5 • thinking off"
    assert model_text(SessionInfo(model_id="m", thinking_level=None)) == "m"
    demo = SessionInfo(model_id="demo", demo=True)
    assert model_text(demo) == "demo • demo (offline)"


def test_usage_parts_only_when_non_zero() -> None:
    assert usage_text(UsageTotals()) == ""
    totals = UsageTotals(input=4700, output=44, cache_read=3800, cost=0.0091)
    assert usage_text(totals) == "↑4.7k ↓44 R3.8k $0.009"


def test_context_levels() -> None:
    info = SessionInfo(context_window=200_000)
    assert context_text(UsageTotals(), info) == ("0.0%/200k (auto)", "")
    assert context_text(UsageTotals(context_tokens=150_000), info) == (
        "75.0%/200k (auto)",
        "-warning",
    )
    assert context_text(UsageTotals(context_tokens=190_000), info) == (
        "95.0%/200k (auto)",
        "-error",
    )
    assert context_text(UsageTotals(context_tokens=None), info) == ("?/200k (auto)", "")
    assert context_text(UsageTotals(), SessionInfo()) == ("", "")


def test_a_long_location_is_shortened_in_the_middle_not_run_into_the_model() -> None:
    """Issue 22 item 13: at 60 columns ``/tmp/faults/averyveryvdemo • thinking off`` (the
    path cut off and run into the model id)."""
    from pitui.ui.widgets.status_bar import fit_location

    cwd = "/tmp/faults/averyveryverylongdirectoryname/prdemo"
    info = SessionInfo(cwd=cwd, git_branch="main")
    assert fit_location(info, 80) == f"{cwd} (main)"
    assert fit_location(info, 30) == "/tmp/…/prdemo (main)"
    assert fit_location(info, 18) == "…/prdemo (main)"
    assert fit_location(info, 10) == "…/prdemo"  # the branch went first
    assert len(fit_location(info, 10)) <= 10
    named = SessionInfo(cwd=cwd, session_name="Port work", read_only=True)
    assert fit_location(named, 40) == "/tmp/…/prdemo • Port work • read-only"
    marked = SessionInfo(cwd=cwd, git_branch="main", session_name="Port work", read_only=True)
    assert fit_location(marked, 24) == "…/prdemo • read-only"  # the marker stays
    assert fit_location(SessionInfo(cwd="/srv/p"), 3) == "…/p"
    assert fit_location(SessionInfo(cwd="/srv/project"), 5) == "…/pr…"


async def test_the_status_line_keeps_a_gap_between_location_and_model() -> None:
    from textual.app import App, ComposeResult

    from pitui.ui.widgets.status_bar import StatusBar

    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar(id="status")

    info = SessionInfo(
        cwd="/tmp/faults/averyveryverylongdirectoryname/prdemo",
        model_id="demo",
        thinking_level="off",
        demo=True,
    )
    for width in (60, 80):
        app = Bar()
        async with app.run_test(size=(width, 2)) as pilot:
            bar = app.query_one(StatusBar)
            bar.show(info, UsageTotals())
            await pilot.pause()
            location = app.query_one(StatusBar).part("location")
            model = app.query_one(StatusBar).part("model")
            inner = width - 2
            assert len(location) + 2 + len(model) <= inner, (location, model)
            assert location.endswith("/prdemo") and model.startswith("demo • thinking off")


async def test_the_bar_draws_both_lines_itself_and_shows_markup_as_typed() -> None:
    """One widget draws the two lines (no row of parts to style and lay out in the first
    frame); a ``[b]`` in a folder name is text, not markup."""
    from textual.app import App, ComposeResult

    from pitui.ui.widgets.status_bar import StatusBar

    class Bar(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar(id="status")

    info = SessionInfo(
        cwd="/srv/[b]odd[/b]", model_id="m", thinking_level="high", context_window=200_000
    )
    app = Bar()
    async with app.run_test(size=(70, 2)) as pilot:
        bar = app.query_one(StatusBar)
        assert not bar.children
        bar.show(info, UsageTotals(input=4700, context_tokens=190_000), "^O expand")
        await pilot.pause()
        top, bottom = (line.plain for line in bar.render().split("\n"))
        width = bar.content_size.width
        assert top.startswith("/srv/[b]odd[/b]") and top.endswith("m • high")
        assert bottom == "↑4.7k  95.0%/200k (auto)".ljust(width - len("^O expand")) + "^O expand"
        assert len(top) == len(bottom) == width == 70
        assert bar.part("context-level") == "-error"
