"""SessionInfo: the facts the status bar shows besides usage (model, place, name).

Plain data, no Textual: the start-up snapshot builds one before the first frame, the live
session builds one from the AgentSession, and the status bar draws it.
"""

from __future__ import annotations

from pitui.records import Record


class SessionInfo(Record):
    """What the status bar shows besides usage (filled by the app from the session)."""

    cwd: str = ""
    git_branch: str | None = None
    session_name: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    """None for models without reasoning."""
    context_window: int = 0
    auto_compaction: bool = True
    demo: bool = False
    files_differ: bool = False
    """The working tree is not the current point's checkpoint (restoring would change it)."""
    read_only: bool = False
    """The session file is open read-only (another pitui has it, or ``--read-only``)."""
