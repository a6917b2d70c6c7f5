"""The context report shows the skills block the system prompt carries."""

from __future__ import annotations

from pathlib import Path

from pitui.core.context_report import build_context_report
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.modes.session_inspect import _context_text
from pitui.ui.view.context_rows import inspector_rows, row_detail
from tests.core.resources.conftest import write_skill


async def test_the_report_carries_the_skills_block(repo: Path, pitui_home: Path) -> None:
    write_skill(pitui_home / "skills" / "pdf", "pdf", "PDF files.")
    write_skill(pitui_home / "skills" / "quiet", "quiet", "Hidden.", body="x")
    quiet = pitui_home / "skills" / "quiet" / "SKILL.md"
    quiet.write_text(quiet.read_text().replace("---\nx", "disable-model-invocation: true\n---\nx"))
    session = await create_agent_session(SessionOptions(cwd=repo, no_session=True))
    report = await build_context_report(session)
    assert report.skill_names == ["pdf"]
    assert report.skills_block.startswith("The following skills provide")
    assert report.skills_block in report.system_prompt
    assert report.to_json()["skills"]["names"] == ["pdf"]
    assert "skills block ~" in _context_text(report)
    assert any(row.key == "skills" for row in inspector_rows(report))
    detail = row_detail(report, "skills")
    assert detail is not None and "<name>pdf</name>" in detail[1]
