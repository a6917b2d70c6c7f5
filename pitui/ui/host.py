"""What commands and controllers may ask of the app: the :class:`UiHost` protocol.

Nothing below :mod:`pitui.ui.app` imports the app. A command or a controller takes a
``UiHost`` — the live session, the view state and its ``apply``, notices, the status bar,
and the few Textual services they use (screens, workers) — so adding a command is adding
a module that nothing else imports. The behaviours that live in controllers and that a
command or a key may start (branch switching, Esc, Ctrl+C) are named here by small
protocols, which the controllers satisfy.

:class:`HostServices` holds the one copy of the helpers every caller shares ("an error
becomes a notice", "after the events sent so far"); the app inherits them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pitui.errors import PituiError
from pitui.ui.live.session import NO_SESSION
from pitui.ui.widgets.key_gate import HOLD_AT_MOST_S

if TYPE_CHECKING:
    from textual.screen import Screen, ScreenResultCallbackType, ScreenResultType
    from textual.timer import Timer
    from textual.worker import Worker

    from pitui.ai.types import ImageContent
    from pitui.core.agent_session import AgentSession
    from pitui.core.keybindings import Keybindings
    from pitui.core.themes import ThemeCatalog
    from pitui.ui.live.bridge import EventBridge
    from pitui.ui.live.session import LiveSession
    from pitui.ui.screens.main import MainScreen
    from pitui.ui.view.chat_state import ChatState
    from pitui.ui.view.reducer import AnyEvent
    from pitui.ui.view.state import NoticeLevel
    from pitui.ui.widgets.key_gate import KeyHold


class BranchControl(Protocol):
    """The branch tree's controller, as commands and keys use it."""

    def switch_sibling(self, step: int) -> None:
        """Alt+← / Alt+→: a user message's previous / next sibling branch."""
        ...

    def open_fork_picker(self) -> None:
        """``/fork``: pick a user message to continue from in a new file."""
        ...

    def sync(self) -> None:
        """Bring the pane up to date with the session file."""
        ...

    def open_rewind(self) -> None:
        """``/rewind``: back to before a user message (conversation, files or both)."""
        ...

    def show_files(self, entry_id: str | None = None) -> None:
        """``/diff [entry]``: what a restore to the point would change in the files."""
        ...

    async def clone(self) -> None:
        """``/clone``: the current path in a new file (its files, if they differ)."""
        ...

    async def follow_files(self, label: str, held: KeyHold | None = None) -> None:
        """After a switch of session: its leaf's files, if they differ and are wanted
        (``held``: keys held since the switch's pick, let go once the question is open)."""
        ...


class PromptControl(Protocol):
    """The composer's controller (what was typed, what is queued)."""

    async def submit(
        self,
        text: str,
        *,
        follow_up: bool,
        images: Sequence[ImageContent] = (),
        held: KeyHold | None = None,
    ) -> None:
        """The user sent ``text`` (with ``images`` from the composer's chips; ``held``:
        the keys typed after a command's Enter, let go once it has opened its screen)."""
        ...

    async def interrupt(self) -> None:
        """Esc: cancel a summary or compaction, or put the queue back and abort."""
        ...

    async def dequeue(self) -> None:
        """Alt+Up: take the queued messages back into the composer."""
        ...

    def take_early_prompts(self) -> list[str]:
        """The prompts typed while the session loaded (the launcher sends them)."""
        ...

    async def follow_run(self, run: Awaitable[None]) -> None:
        """Await a run, then show what it recorded after its last event (the files'
        checkpoint): the tree's rows and the status bar."""
        ...

    def wait_for_session(
        self, label: str, run: Callable[[], Awaitable[None]], held: KeyHold | None = None
    ) -> None:
        """``run()`` once the session is up (after those waiting already); ``label``
        (``/mcp``) names it in the "still loading" notice; ``held``: the keys typed after
        its Enter, which wait with it (they go to the screen it opens, if it opens one)."""
        ...

    async def run_waiting_commands(self) -> None:
        """The session is up (or failed to start): run the waiting commands in order."""
        ...


class KeyControl(Protocol):
    """The user's keys (keybindings.json) and pi's Ctrl+C / Ctrl+D."""

    @property
    def keybindings(self) -> Keybindings:
        """The effective keys of every action."""
        ...

    def keys_text(self, action_id: str, unbound: str = "unbound") -> str:
        """How an action's keys are shown (``Ctrl+L``); ``unbound`` when it has none."""
        ...

    def clear_editor(self) -> None:
        """Ctrl+C: clear the composer; twice quickly: quit."""
        ...

    def hotkey_rows(self) -> list[tuple[str, str, str]]:
        """``/hotkeys``' rows: ``(keys, description, action id)``, then the fixed keys."""
        ...

    def applies(self, action_id: str) -> bool:
        """Whether a key action acts now (else the key goes on to the focused widget)."""
        ...

    async def run_action(self, action_id: str) -> bool:
        """Run the action ``action_id``; False if it does not apply now."""
        ...


class UiHost(Protocol):
    """The app as its commands and controllers see it."""

    @property
    def live(self) -> LiveSession | None:
        """The connected session (None before the start-up attached one)."""
        ...

    @property
    def loading(self) -> bool:
        """A session is being started (prompts typed now are queued for it)."""
        ...

    @property
    def chat(self) -> ChatState:
        """The view state now."""
        ...

    @property
    def main(self) -> MainScreen:
        """The main screen (panes, composer, status bar)."""
        ...

    @property
    def bridge(self) -> EventBridge | None:
        """The session's events on their way into the view."""
        ...

    @property
    def themes(self) -> ThemeCatalog:
        """The pi themes found at start-up."""
        ...

    @property
    def branches(self) -> BranchControl:
        """The branch tree's controller."""
        ...

    @property
    def prompts(self) -> PromptControl:
        """The composer's controller."""
        ...

    @property
    def keys(self) -> KeyControl:
        """The key controller."""
        ...

    async def apply(self, events: Iterable[AnyEvent]) -> None:
        """Reduce ``events`` into the view and update the widgets that changed."""
        ...

    def after_events(self, callback: Any, *args: Any) -> None:
        """Call ``callback(*args)`` once the session events sent so far are shown."""
        ...

    def apply_after_events(self, events: Sequence[AnyEvent]) -> None:
        """Apply ``events`` after the session events sent so far (e.g. after a rebuild)."""
        ...

    async def notice(self, text: str, level: NoticeLevel = "info") -> None:
        """Show a line in the conversation."""
        ...

    def notice_after_events(
        self, text: str, level: NoticeLevel = "info", *, lasting: bool = False
    ) -> None:
        """A notice shown after the session events sent so far (``lasting``: not
        replaced by the next status line)."""
        ...

    async def guarded(self, work: Awaitable[None]) -> None:
        """Await ``work``; a :class:`PituiError` becomes an error notice."""
        ...

    def run_guarded(self, work: Awaitable[None], group: str = "default") -> None:
        """Run ``work`` in a worker; its :class:`PituiError` becomes an error notice."""
        ...

    def refresh_status(self) -> None:
        """Redraw the status bar from the session's facts now."""
        ...

    async def attach_session(self, live: LiveSession) -> None:
        """Make ``live`` the app's session: rebuild the view from it, follow its events."""
        ...

    async def show_preview(self, state: ChatState, *, more: bool = False) -> None:
        """Show a session's last messages while it loads (``more``: it goes on above)."""
        ...

    def end_loading(self) -> None:
        """The start-up is over without a session (prompts typed now are not queued)."""
        ...

    def hold_keys(self, limit: float = HOLD_AT_MOST_S) -> KeyHold:
        """Hold the keys typed from now on until the returned hold is let go: a flow
        started by a key that opens its screen only after some work (the keys of a burst
        then reach that screen, not the widget behind it); ``limit`` seconds at most."""
        ...

    def switch_theme(self, name: str) -> bool:
        """Switch to the pi theme ``name``; False if there is none."""
        ...

    @property
    def theme(self) -> str:
        """The Textual theme shown now."""
        ...

    # Textual's services, as the app has them.
    @property
    def screen(self) -> Screen[object]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def push_screen(
        self,
        screen: Screen[ScreenResultType],
        callback: ScreenResultCallbackType[ScreenResultType] | None = None,
    ) -> Any: ...

    async def push_screen_wait(self, screen: Screen[ScreenResultType]) -> ScreenResultType: ...

    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...

    def call_after_refresh(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...

    def set_timer(
        self,
        delay: float,
        callback: Callable[[], Awaitable[Any]] | Callable[[], Any] | None = None,
        *,
        name: str | None = None,
        pause: bool = False,
    ) -> Timer: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def notify(self, message: str, *, timeout: float | None = None) -> None: ...

    def exit(self, result: None = None, return_code: int = 0, message: Any = None) -> None: ...

    async def run_action(self, action: str, default_namespace: Any = None) -> bool: ...

    def set_keymap(self, keymap: dict[str, str]) -> None: ...

    def batch_update(self) -> Any: ...


T = TypeVar("T")


def push_for_result(host: UiHost, screen: Screen[T]) -> asyncio.Future[T | None]:
    """Push ``screen`` now and get what it dismisses with later (None if it goes away
    without a result).

    Textual's ``push_screen_wait`` pushes from inside a worker, a loop turn later, so the
    next keys of a fast burst would still reach the widget below; pushing here, in the
    handler of the key that opened it, sends them to the screen. A flow of several
    screens then reads top to bottom in a worker awaiting these futures.
    """
    result: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

    def done(value: T | None) -> None:
        if not result.done():
            result.set_result(value)

    host.push_screen(screen, done)
    return result


class SessionLoading(PituiError):
    """An action needs the session, which is still loading: the action waits for it
    (:func:`pitui.ui.commands.dispatch.run_action` queues it) instead of failing."""


def wait_for_session(host: UiHost) -> None:
    """Raise :class:`SessionLoading` while the start-up still builds the session, so the
    calling action runs again once it is up (in the order typed)."""
    if host.live is None and host.loading:
        raise SessionLoading("The session is still loading.")


def require_session(host: UiHost) -> AgentSession:
    """The connected AgentSession, or the :class:`PituiError` that becomes a notice
    (:class:`SessionLoading` while it loads: the action waits for it)."""
    live = host.live
    if live is None:
        wait_for_session(host)
        raise PituiError(NO_SESSION)
    return live.session


class HostServices:
    """The shared helpers of :class:`UiHost`, written once (the app inherits them).

    Needs ``apply``, ``bridge``, ``call_later``, ``run_worker``, ``live`` and
    ``update_info`` of the class it is mixed into.
    """

    async def notice(self: _ServiceBase, text: str, level: NoticeLevel = "info") -> None:
        from pitui.ui.view.events import AddNotice  # lazy: not first-frame

        await self.apply([AddNotice(text, level)])

    def after_events(self: _ServiceBase, callback: Any, *args: Any) -> None:
        if self.bridge is not None:
            self.bridge.flush()  # posts the pending batch; the callback queues behind it
        self.call_later(callback, *args)

    def apply_after_events(self: _ServiceBase, events: Sequence[AnyEvent]) -> None:
        self.after_events(self.apply, list(events))

    def notice_after_events(
        self: _ServiceBase, text: str, level: NoticeLevel = "info", *, lasting: bool = False
    ) -> None:
        from pitui.ui.view.events import AddNotice  # lazy: not first-frame

        self.apply_after_events([AddNotice(text, level, lasting)])

    async def guarded(self: _ServiceBase, work: Awaitable[None]) -> None:
        try:
            await work
        except PituiError as exc:
            await self.notice(f"Error: {exc}", "error")

    def run_guarded(self: _ServiceBase, work: Awaitable[None], group: str = "default") -> None:
        self.run_worker(self.guarded(work), group=group, exit_on_error=False)

    def refresh_status(self: _ServiceBase) -> None:
        live = self.live
        if live is not None:
            self.update_info(live.info())


class _ServiceBase(Protocol):
    """What :class:`HostServices` relies on in the class it is mixed into."""

    @property
    def live(self) -> LiveSession | None: ...

    @property
    def bridge(self) -> EventBridge | None: ...

    async def apply(self, events: Iterable[AnyEvent]) -> None: ...

    async def notice(self, text: str, level: NoticeLevel = "info") -> None: ...

    async def guarded(self, work: Awaitable[None]) -> None: ...

    def apply_after_events(self, events: Sequence[AnyEvent]) -> None: ...

    def after_events(self, callback: Any, *args: Any) -> None: ...

    def update_info(self, info: Any) -> None: ...

    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...

    def run_worker(
        self,
        work: Awaitable[Any],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
    ) -> Worker[Any]: ...
