"""Turn a typed ``/skill:name args`` or ``/template args`` into what the model gets.

The order is pi's: a skill command first, then a prompt template; anything else is
returned unchanged.
"""

from __future__ import annotations

from pitui.core.resources.loader import LoadedResources
from pitui.core.resources.skill_prompt import expand_skill_command
from pitui.core.resources.templates import expand_prompt_template


async def expand_user_input(text: str, resources: LoadedResources) -> str:
    """The prompt text to send for what the user typed."""
    expanded = await expand_skill_command(text, resources.skills)
    return expand_prompt_template(expanded, resources.templates)
