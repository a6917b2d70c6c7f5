"""Project skills and templates load only after project trust; until then a notice."""

from __future__ import annotations

from pathlib import Path

from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.trust import PROJECT_RESOURCES, load_trust
from tests.core.resources.conftest import write_skill


def _project(repo: Path, pitui_home: Path) -> None:
    write_skill(repo / ".agents" / "skills" / "proj", "proj", "Project skill.")
    (repo / ".pi" / "prompts").mkdir(parents=True)
    (repo / ".pi" / "prompts" / "review.md").write_text("Review $1")
    write_skill(pitui_home / "skills" / "mine", "mine", "User skill.")


async def test_untrusted_project_resources_are_skipped_with_a_notice(
    repo: Path, pitui_home: Path
) -> None:
    _project(repo, pitui_home)
    options = SessionOptions(cwd=repo, no_session=True)
    session = await create_agent_session(options)
    assert [s.name for s in session.resources.skills] == ["mine"]
    assert session.resources.templates == []
    assert session.resources.project_trust is None
    [notice] = [w for w in options.warnings if "not trusted" in w]
    assert ".agents/skills/proj/SKILL.md" in notice and ".pi/prompts/review.md" in notice
    assert "--trust-project" in notice
    assert "<name>proj</name>" not in session.agent.state.system_prompt
    assert await session.expand_input("/review x") == "/review x"


async def test_a_trusted_project_loads_them(repo: Path, pitui_home: Path) -> None:
    _project(repo, pitui_home)
    store = await load_trust()
    await store.decide(repo.parent, PROJECT_RESOURCES, True)  # a parent's decision covers it
    options = SessionOptions(cwd=repo, no_session=True)
    session = await create_agent_session(options)
    assert [s.name for s in session.resources.skills] == ["proj", "mine"]
    assert "<name>proj</name>" in session.agent.state.system_prompt
    assert await session.expand_input("/review x") == "Review x"
    assert not [w for w in options.warnings if "not trusted" in w]


async def test_a_refusal_and_the_one_run_flag(repo: Path, pitui_home: Path) -> None:
    _project(repo, pitui_home)
    await (await load_trust()).decide(repo, PROJECT_RESOURCES, False)
    refused = await create_agent_session(SessionOptions(cwd=repo, no_session=True))
    assert refused.resources.project_trust is False and refused.resources.templates == []
    once = await create_agent_session(SessionOptions(cwd=repo, no_session=True, trust_project=True))
    assert [t.name for t in once.resources.templates] == ["review"]
    assert (await load_trust()).decision(repo, PROJECT_RESOURCES) is False  # not saved


async def test_trusting_in_the_session_loads_them_now(repo: Path, pitui_home: Path) -> None:
    from pitui.core.resources.trust_flow import decide_project_trust, needs_trust_question

    _project(repo, pitui_home)
    session = await create_agent_session(SessionOptions(cwd=repo, no_session=True))
    assert needs_trust_question(session.resources)
    await decide_project_trust(session, True)
    assert "<name>proj</name>" in session.agent.state.system_prompt
    assert await session.expand_input("/review x") == "Review x"
    assert (await load_trust()).decision(repo, PROJECT_RESOURCES) is True
    again = await create_agent_session(SessionOptions(cwd=repo, no_session=True))
    assert not needs_trust_question(again.resources) and again.resources.templates


async def test_refusing_is_remembered(repo: Path, pitui_home: Path) -> None:
    from pitui.core.resources.trust_flow import decide_project_trust, needs_trust_question

    _project(repo, pitui_home)
    session = await create_agent_session(SessionOptions(cwd=repo, no_session=True))
    await decide_project_trust(session, False)
    again = await create_agent_session(SessionOptions(cwd=repo, no_session=True))
    assert not needs_trust_question(again.resources) and again.resources.templates == []
