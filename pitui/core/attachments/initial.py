"""The command line's ``@file`` arguments attached to the first prompt (print mode, TUI).

pi sends them in one user turn: the files' blocks, then the first message. The first
message's command (``/review``) is expanded before the files go in front of it, so
``pitui @a.py "/review"`` still runs the template.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pitui.core.attachments.files import Attachments, attach_files

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession


async def attach_to_first(
    session: AgentSession, prompts: list[str], files: Sequence[str]
) -> Attachments | None:
    """Put ``files`` in front of ``prompts[0]`` (in place, expanded); the attachments
    (their images and notes), or None without files.

    Raises:
        AttachmentError: A file is missing, or images go to a model without image input.
    """
    if not files:
        return None
    attached = await attach_files(
        files, session.cwd, model=session.model, auto_resize=session.settings.images.auto_resize
    )
    prompts[0] = attached.text + await session.expand_input(prompts[0])
    return attached
