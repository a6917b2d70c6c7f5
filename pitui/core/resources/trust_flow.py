"""The user answered the trust question for a project: remember it and apply it now.

Trusting loads the project's skills and templates into the running session and rebuilds
its system prompt (the next request advertises the skills); refusing is remembered so
the question is not asked again. The answer lives in the pitui home's trust store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.core.resources.loader import LoadedResources, load_resources
from pitui.core.system_prompt import load_context_files, load_system_prompt
from pitui.core.trust import PROJECT_RESOURCES, load_trust

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession


def needs_trust_question(resources: LoadedResources) -> bool:
    """Whether to ask: the project ships resources and nobody decided yet."""
    return bool(resources.skipped) and resources.project_trust is None


async def decide_project_trust(
    session: AgentSession,
    allowed: bool,
    *,
    system_prompt: str | None = None,
    append_system_prompt: str | None = None,
    reserved_commands: tuple[str, ...] = (),
) -> LoadedResources:
    """Record ``allowed`` for the session's project; when allowed, load its resources
    into the session now (``system_prompt``/``append_system_prompt``: the session's own
    flags, so the rebuilt prompt is built the same way). Returns the resources in use."""
    await (await load_trust()).decide(session.cwd, PROJECT_RESOURCES, allowed)
    if not allowed:
        session.resources.project_trust = False
        return session.resources
    resources = await load_resources(
        session.cwd,
        trusted=True,
        pi_folders=session.settings.load_pi_resources,
        reserved_names=reserved_commands,
    )
    resources.project_trust = True
    context_files = await load_context_files(session.cwd)
    resources.context_files = [item.path for item in context_files]
    session.resources = resources
    session.agent.state.system_prompt = await load_system_prompt(
        session.cwd,
        [tool.name for tool in session.agent.state.tools],
        system_prompt=system_prompt,
        append_system_prompt=append_system_prompt,
        skills=resources.skills,
        context_files=context_files,
    )
    return resources
