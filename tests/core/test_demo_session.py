"""The demo model in a real session (issue 22 item 15): tool-call ids unique in the
session (also after a compaction), line counts right, summaries that do not list done
work as in progress, and an export that counts lines in English."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ai.models import ModelRegistry
from pitui.ai.types import AssistantMessage
from pitui.core.agent_session import AgentSession
from pitui.core.export import export_session
from pitui.core.messages import CompactionSummaryMessage
from pitui.core.session.entries import CompactionEntry, MessageEntry
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.settings import CompactionSettings, Settings
from pitui.core.themes import discover_themes, resolve_theme


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def _session(tmp_path: Path) -> AgentSession:
    settings = Settings(compaction=CompactionSettings(keep_recent_tokens=1))  # compact all
    options = SessionOptions(
        cwd=tmp_path,
        registry=ModelRegistry(),
        session_dir=tmp_path / "s",
        model="demo/demo",
        settings=settings,
    )
    return await create_agent_session(options)


def _call_ids(session: AgentSession) -> list[str]:
    return [
        call.id
        for e in session.store.get_entries()
        if isinstance(e, MessageEntry) and isinstance(e.message, AssistantMessage)
        for call in e.message.tool_calls()
    ]


async def test_tool_call_ids_stay_unique_after_a_compaction(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    for text in ("list files", "run echo one", "run echo two"):
        await session.prompt(text)
    await session.compact()
    for text in ("list files", "run echo three"):
        await session.prompt(text)
    ids = _call_ids(session)
    assert len(ids) == 5 and len(set(ids)) == 5, ids
    await session.close()


async def test_a_read_reports_the_files_line_count(tmp_path: Path) -> None:
    (tmp_path / "twelve.txt").write_text("".join(f"line {n}\n" for n in range(1, 13)))
    session = await _session(tmp_path)
    await session.prompt("read twelve.txt")
    last = session.messages[-1]
    assert isinstance(last, AssistantMessage)
    assert "`twelve.txt` has 12 line(s)" in last.text()
    await session.close()


async def test_a_compaction_summary_lists_answered_work_as_done(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    session = await _session(tmp_path)
    await session.prompt("read a.txt")
    await session.prompt("run echo hi")
    await session.compact()
    [compaction] = [e for e in session.store.get_entries() if isinstance(e, CompactionEntry)]
    summary = compaction.summary
    assert "### In Progress\n- [ ] (nothing)" in summary
    assert "- [x] Read `a.txt`" in summary
    assert any(isinstance(m, CompactionSummaryMessage) for m in session.messages)
    await session.close()


async def test_the_export_counts_one_thinking_line_in_the_singular(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    await session.prompt("hello")
    catalog = discover_themes()
    theme = resolve_theme("dark", catalog)
    assert theme is not None
    out = await export_session(session.store, tmp_path / "out.html", theme)
    html = out.read_text()
    assert "Thinking · 1 line</summary>" in html
    assert "Thinking · 1 lines" not in html
    await session.close()
