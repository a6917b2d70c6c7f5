"""What the composer's Enter, Esc and Alt+Up mean now.

Submitting text is an eight-way decision: a slash command; a prompt typed while the
session still loads (queued, sent once it is up); a ``!cmd`` then (kept in the composer);
no session at all; the user's own ``!cmd``; a prompt during a compaction (a follow-up, as
pi); a steering or follow-up message while the agent works; else a new prompt. Esc
cancels a summary or a compaction, or puts the queue back and aborts, or — twice on an
idle, empty composer — runs pi's ``doubleEscapeAction``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pitui.ui.commands import dispatch
from pitui.ui.live.session import NO_SESSION_NOTICE
from pitui.ui.widgets.composer import Composer

if TYPE_CHECKING:
    from pitui.ui.host import UiHost

DOUBLE_ESCAPE_SECONDS = 0.5
"""A second Esc within this time on an empty composer runs pi's doubleEscapeAction."""
LOADING_NOTICE = "The session is still loading; press Enter again in a moment."
"""For a ``!command`` typed before the session is up (a prompt is queued instead)."""


class PromptController:
    """The composer's intents, turned into session calls."""

    def __init__(self, host: UiHost) -> None:
        self.host = host
        self.early_prompts: list[str] = []
        """Prompts sent before the session was up, in order (the launcher sends them)."""
        self._last_escape = -1.0

    @property
    def composer(self) -> Composer:
        return self.host.main.query_one(Composer)

    async def submit(self, text: str, *, follow_up: bool) -> None:
        """The user sent ``text`` (``follow_up``: with Alt+Enter)."""
        from pitui.ui.view.events import AddNotice, QueueMessage  # lazy: not first-frame

        host = self.host
        live = host.live
        stripped = text.strip()
        if dispatch.is_command(stripped):
            dispatch.run(host, stripped)
        elif live is None and host.loading and not stripped.startswith("!"):
            # Still loading: queued, and sent in order once the session is up.
            self.early_prompts.append(stripped)
            await host.apply([QueueMessage(stripped, "followUp")])
        elif live is None and host.loading:  # still loading: keep the text
            self.composer.put_text(text)
            await host.apply([AddNotice(LOADING_NOTICE)])
        elif live is None:
            await host.apply([AddNotice(NO_SESSION_NOTICE, "warning")])
        elif live.read_only:  # refused: the text stays to be sent elsewhere (/new, /fork)
            self.composer.put_text(text)
            from pitui.core.session.store import read_only_notice

            notice = (
                "The session is open read-only: the prompt was not sent, and your text stays "
                f"in the composer. {read_only_notice(live.session.store)}"
            )
            await host.apply([AddNotice(notice, "warning")])
        elif stripped.startswith("!") and stripped.lstrip("!").strip():
            excluded = stripped.startswith("!!")
            command = stripped[2:] if excluded else stripped[1:]
            host.run_guarded(
                live.port.run_bash(command.strip(), exclude_from_context=excluded), "session"
            )
        elif live.is_compacting:
            live.port.follow_up(stripped)  # sent once the compaction is done (pi)
            await host.apply([QueueMessage(stripped, "followUp")])
        elif host.chat.busy or live.busy:
            if follow_up:
                live.port.follow_up(stripped)
                await host.apply([QueueMessage(stripped, "followUp")])
            else:
                live.port.steer(stripped)
                await host.apply([QueueMessage(stripped, "steer")])
        else:
            host.run_guarded(live.port.prompt(stripped), "session")

    def take_early_prompts(self) -> list[str]:
        """The prompts typed while the session loaded, now its to send."""
        prompts, self.early_prompts = self.early_prompts, []
        return prompts

    async def dequeue(self) -> None:
        """Alt+Up: take queued messages back into the composer."""
        from pitui.ui.view.events import ClearQueue  # lazy: not first-frame

        live = self.host.live
        texts = live.port.dequeue_all() if live is not None else self.take_early_prompts()
        if texts:
            composer = self.composer
            current = composer.text
            composer.put_text("\n\n".join([*texts, current] if current else texts))
        await self.host.apply([ClearQueue()])

    async def interrupt(self) -> None:
        """Esc: cancel a branch summary or a compaction; else put the queued texts back
        into the composer and abort (pi's order); on an idle, empty composer, twice in a
        row: pi's ``doubleEscapeAction`` (focus the branch tree, or the fork picker)."""
        host = self.host
        live = host.live
        if live is None:
            return
        session = live.facade
        if session is not None and live.is_summarizing:
            session.navigation.abort()
        elif session is not None and live.is_compacting:
            session.abort_compaction()
        elif host.chat.busy or host.chat.bash_id is not None:
            await self.dequeue()
            live.port.abort()
        elif session is not None and not self.composer.text:
            self._double_escape(session.settings.double_escape_action)

    def _double_escape(self, action: str) -> None:
        now = time.monotonic()
        if now - self._last_escape >= DOUBLE_ESCAPE_SECONDS:
            self._last_escape = now
            return
        self._last_escape = -1.0
        if action == "tree":
            self.host.main.focus_branches()
        elif action == "fork":
            self.host.branches.open_fork_picker()
