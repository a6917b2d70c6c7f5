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
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from pitui.errors import PituiError
from pitui.ui.commands import dispatch
from pitui.ui.commands.keymap import key_set
from pitui.ui.live.session import NO_SESSION_NOTICE

if TYPE_CHECKING:
    from pitui.ai.types import ImageContent
    from pitui.ui.host import UiHost
    from pitui.ui.live.session import LiveSession
    from pitui.ui.widgets.composer import Composer
    from pitui.ui.widgets.key_gate import KeyHold

DOUBLE_ESCAPE_SECONDS = 0.5
"""A second Esc within this time on an empty composer runs pi's doubleEscapeAction."""
LOADING_NOTICE = "The session is still loading; press Enter again in a moment."
"""For a ``!command`` typed before the session is up (a prompt is queued instead)."""
WAITING_NOTICE = "The session is still loading"
"""How the notice about commands waiting for the session begins."""
WAITING_NOTICE_SECONDS = 0.4
"""A command waiting longer than this for the session says so (a moment: no notice)."""


class PromptController:
    """The composer's intents, turned into session calls."""

    def __init__(self, host: UiHost) -> None:
        self.host = host
        self.early_prompts: list[str] = []
        """Prompts sent before the session was up, in order (the launcher sends them)."""
        self._waiting: list[tuple[str, Callable[[], Awaitable[None]], KeyHold | None]] = []
        """Commands and keys that need the session, typed while it loads: run once it is
        up, in order (see :func:`~pitui.ui.commands.dispatch.run_action`)."""
        self._last_escape = -1.0

    @property
    def composer(self) -> Composer:
        return self.host.main.composer

    async def submit(
        self,
        text: str,
        *,
        follow_up: bool,
        images: Sequence[ImageContent] = (),
        held: KeyHold | None = None,
    ) -> None:
        """The user sent ``text`` (``follow_up``: with Alt+Enter; ``images``: the
        composer's chips; ``held``: the keys typed after a command's Enter)."""
        from pitui.ui.view.events import AddNotice, QueueMessage  # lazy: not first-frame

        host = self.host
        live = host.live
        stripped = text.strip()
        if dispatch.is_command(stripped) and not dispatch.is_session_command(host, stripped):
            dispatch.run(host, stripped, held)
            return
        if held is not None:  # not a command after all (a path, a template): typing goes on
            held.release()
        if live is None and images:  # nothing can take the images yet: keep them
            self._restore(text, images)
            await host.apply([AddNotice(LOADING_NOTICE if host.loading else NO_SESSION_NOTICE)])
        elif live is None and host.loading and not stripped.startswith("!"):
            # Still loading: queued, and sent in order once the session is up.
            self.early_prompts.append(stripped)
            await host.main.hide_startup_listing()  # it goes with the first prompt
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
        else:
            await self._send(live, stripped, images, follow_up=follow_up)

    async def _send(
        self, live: LiveSession, text: str, images: Sequence[ImageContent], *, follow_up: bool
    ) -> None:
        """A prompt, a steering or a follow-up message: its command expanded and its files
        attached first (a refusal puts the text back in the composer)."""
        from pitui.ui.view.events import QueueMessage  # lazy: not first-frame

        host = self.host
        session = live.facade
        sent, pictures = text, list(images)
        await host.main.hide_startup_listing()  # pi's listing goes with the first prompt
        if session is not None:
            from pitui.core.attachments.submit import prepare_submission

            try:
                prepared = await prepare_submission(session, text, images)
            except PituiError as exc:
                self._restore(text, images)
                await host.notice(str(exc), "warning")
                return
            for note in prepared.notes:
                await host.notice(note, "warning")
            sent, pictures = prepared.text, prepared.images
        if live.is_compacting or host.chat.busy or live.busy:
            # During a compaction a prompt waits as a follow-up (pi); else Enter steers.
            if follow_up or live.is_compacting:
                if session is None:
                    live.port.follow_up(text)
                else:
                    session.follow_up(sent, pictures or None)
                await host.apply([QueueMessage(text, "followUp")])
            else:
                if session is None:
                    live.port.steer(text)
                else:
                    session.steer(sent, pictures or None)
                await host.apply([QueueMessage(text, "steer")])
        elif session is None:
            host.run_guarded(self.follow_run(live.port.prompt(text)), "session")
        else:
            run = session.prompt(sent, pictures or None, expand=False)
            host.run_guarded(self.follow_run(run), "session")

    def _restore(self, text: str, images: Sequence[ImageContent]) -> None:
        """Put a text and its images back into the composer (nothing was sent)."""
        from pitui.core.attachments.images import PendingImage

        composer = self.composer
        composer.load_text(text)
        composer.move_cursor(composer.document.end)
        for number, image in enumerate(images, 1):
            composer.add_image(PendingImage(f"image {number}", image))

    async def follow_run(self, run: Awaitable[None]) -> None:
        """A run, then what it recorded after its last event (the files' checkpoint) is
        shown: the tree's rows and the status bar."""
        await run
        self.host.after_events(self._caught_up)

    def _caught_up(self) -> None:
        self.host.branches.sync()  # after the run's events: the conversation is complete
        self.host.refresh_status()

    def take_early_prompts(self) -> list[str]:
        """The prompts typed while the session loaded, now its to send."""
        prompts, self.early_prompts = self.early_prompts, []
        return prompts

    def wait_for_session(
        self, label: str, run: Callable[[], Awaitable[None]], held: KeyHold | None = None
    ) -> None:
        """``run()`` once the session is up, after those waiting already; if the wait
        lasts more than a moment a notice names what waits (``label``: ``/mcp``).

        ``held``: the keys typed after its Enter. They wait with it, and go on once it
        has run to its first step: to the screen it opens (``/model⏎demo`` typed while
        the session loads searches the picker for "demo"), else to the composer, in the
        order typed. The hold's 1 s limit would let them go to the composer first."""
        if held is not None:
            from pitui.ui.widgets.key_gate import FLOW_HOLD_AT_MOST_S  # lazy: not first-frame

            longer = self.host.hold_keys(FLOW_HOLD_AT_MOST_S)  # taken first: no gap
            held.release()
            held = longer
        self._waiting.append((label, run, held))
        if len(self._waiting) == 1:
            self.host.set_timer(WAITING_NOTICE_SECONDS, self._say_waiting)

    def cancels_waiting(self, key: str) -> bool:
        """``key`` is the interrupt key (Esc) while commands typed during the start-up
        hold the keys after them: it is not held with them, so that it cancels them, as
        the "still loading" notice says."""
        if not any(held is not None for _, _, held in self._waiting):
            return False
        return key in key_set(self.host.keys.keybindings, "interrupt")

    async def _say_waiting(self) -> None:
        host = self.host
        if not self._waiting or host.live is not None or not host.loading:
            return
        labels = [label for label, _, _ in self._waiting]
        verb = "runs" if len(labels) == 1 else "run"
        keys = host.keys.keys_text("interrupt", unbound="")
        cancel = f" ({keys} cancels)" if keys else ""
        await host.notice(f"{WAITING_NOTICE}: {', '.join(labels)} {verb} once it is up{cancel}.")

    async def run_waiting_commands(self) -> None:
        """The session is up (or its start-up failed: they then say there is none): run
        what waited for it, one after the other, in the order typed."""
        while self._waiting:
            _, run, held = self._waiting.pop(0)

            async def command(run: Callable[[], Awaitable[None]] = run) -> None:
                await run()

            await self.host.guarded(dispatch.run_holding(command(), held))

    async def _cancel_waiting(self) -> None:
        """Esc while the session loads: forget the commands waiting for it."""
        labels = [label for label, _, _ in self._waiting]
        for _, _, held in self._waiting:
            if held is not None:
                held.release()  # the keys typed after it go on, in order
        self._waiting.clear()
        if labels:
            await self.host.notice(f"Cancelled while the session loads: {', '.join(labels)}")

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
        row: pi's ``doubleEscapeAction`` (focus the branch tree, or the fork picker).
        While the session loads: cancel the commands waiting for it."""
        host = self.host
        live = host.live
        if live is None:
            await self._cancel_waiting()
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
