"""What the TUI sends for a submitted composer text: one call, every step in pi's order.

The typed command (``/skill:name``, ``/template``) is expanded; ``@`` files named in
the typed text are attached before it; pasted images join them; a model without image
input is refused before anything is sent. The caller then sends ``text`` and
``images`` with ``AgentSession.prompt(..., expand=False)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pitui.ai.types import ImageContent
from pitui.core.attachments.references import PreparedPrompt, prepare_prompt

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession


async def prepare_submission(
    session: AgentSession, text: str, images: Sequence[ImageContent] = ()
) -> PreparedPrompt:
    """The prompt to send for ``text`` typed in the composer.

    Raises:
        AttachmentError: Images for a model without image input, or a file vanished.
        SkillExpansionError: A skill's file cannot be read.
    """
    expanded = await session.expand_input(text)
    return await prepare_prompt(
        text,
        session.cwd,
        model=session.model,
        auto_resize=session.settings.images.auto_resize,
        send_text=expanded,
        images=images,
    )
