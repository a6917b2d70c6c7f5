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
