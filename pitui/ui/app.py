"""The Textual app: lifecycle, themes, bindings → actions, the one ChatState and ``apply``.

It owns the view state and the session handle, and routes what widgets post to the
controllers (:mod:`pitui.ui.controllers`) and what keys ask to the action table
(:mod:`pitui.ui.commands.actions`). Commands and controllers see it as a
:class:`~pitui.ui.host.UiHost` and never import it.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from textual import events as textual_events
from textual._path import CSSPathType
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import Screen

from pitui.core.keybindings import Keybindings
from pitui.core.session.bulk import resume_collection
from pitui.core.usage import UsageTotals
from pitui.errors import PituiError
from pitui.ui.app_themes import PiThemedApp
from pitui.ui.app_tree_messages import TreeMessages
from pitui.ui.commands.actions import BY_ID
from pitui.ui.commands.keymap import bindings, key_set
from pitui.ui.host import HostServices
from pitui.ui.live.bridge import AgentEventBatch, EventBridge, Subscribe
from pitui.ui.live.session import NO_SESSION_NOTICE, LiveSession
from pitui.ui.screens.main import MainScreen
from pitui.ui.theme import ThemeCatalog
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.pvector import changed_positions
from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.key_gate import (
    HOLD_AT_MOST_S,
    Held,
    HeldKeyDone,
    KeyGate,
    KeyHold,
    OpensScreens,
    Picks,
)

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.command import Provider

    from pitui.ui.controllers.branches import BranchesController
    from pitui.ui.controllers.keys import KeyController
    from pitui.ui.controllers.prompt import PromptController
    from pitui.ui.controllers.signals import QuitSignals
    from pitui.ui.css_cache import CssCache
    from pitui.ui.live.port import SessionPort
    from pitui.ui.view.reducer import AnyEvent
    from pitui.ui.view.replay_memo import ReplayMemo
    from pitui.ui.widgets.base import ToggleRequested  # item widgets: not first-frame
    from pitui.ui.widgets.composer import Composer  # mounted after the first frame

SCREEN_FLOW_ACTIONS = ("previousBranch", "nextBranch")
"""Actions that open a screen only after some work (the sibling's files are compared
before Restore files is asked): the keys typed after theirs wait for it."""
# Session changes after which the transcript itself is different: rebuild the view.
REBUILD_KINDS = frozenset({"new", "resume", "navigate", "fork", "compaction"})
Startup = Callable[["PituiApp"], Awaitable[None]]


def _palette_provider() -> type[Provider]:
    """pitui's command-palette provider, imported when the palette first opens (Textual
    accepts a callable in ``COMMANDS`` for this): the first frame has no palette."""
    from pitui.ui.commands.palette import PituiCommandProvider

    return PituiCommandProvider


class PituiMainScreen(MainScreen):
    """The main screen with the action table's screen-scope bindings (keys a binding of
    the screen's own, such as Shift+Tab's focus-back, would otherwise take)."""

    BINDINGS: ClassVar[list[BindingType]] = list(bindings("screen"))


class PituiApp(HostServices, TreeMessages, PiThemedApp, inherit_bindings=False):
    """pitui's full-screen UI (Textual's own keys are not inherited: they have no id)."""

    # What the first, empty screen needs. The item widgets' stylesheets (conversation.tcss,
    # tool_card.tcss) are added with the first item: see widgets/conversation.py.
    CSS_PATH: ClassVar[CSSPathType | None] = [
        "app.tcss",
        "screens/main.tcss",
        "widgets/composer.tcss",
        "widgets/status_bar.tcss",
    ]
    COMMANDS = App.COMMANDS | {_palette_provider}
    # Every binding has its action id (commands/actions.py); keybindings.json rebinds them.
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("app"))

    def __init__(
        self,
        *,
        session: SessionPort | None = None,
        event_source: Subscribe | None = None,
        info: SessionInfo | None = None,
        themes: ThemeCatalog | None = None,
        theme_name: str = "dark",
        keybindings: Keybindings | None = None,
        live: LiveSession | None = None,
        css_cache: CssCache | None = None,
    ) -> None:
        super().__init__()
        if css_cache is not None:  # before anything is parsed (see pitui.ui.css_cache)
            from pitui.ui.css_cache import CachedStylesheet

            self.stylesheet = CachedStylesheet(css_cache, variables=self.get_css_variables())
        if live is None and session is not None:
            live = LiveSession.of_port(session)
        self._live: LiveSession | None = live
        """The connected session (port and façade): the one handle on it."""
        self._chat = ChatState()
        self._rebuilding = asyncio.Lock()
        """One rebuild at a time: two interleaved would each replace the other's widgets."""
        self.info = info or (live.info() if live is not None else SessionInfo(cwd=os.getcwd()))
        self._catalog = themes
        self._theme_name = theme_name
        self._warnings = self._install_themes()
        """Theme problems, shown once the screen is up."""
        self._keybindings = keybindings
        """keybindings.json's bindings (None: read the file after the first frame)."""
        self._screen_keys: tuple[Keybindings, frozenset[str]] | None = None
        source = event_source or (live.subscribe if live is not None else None)
        self._bridge = EventBridge(self, source) if source is not None else None
        self.new_session = False
        """The startup creates a new session (set before the app runs; see ``launch``)."""
        self.startup: Startup | None = None
        """Run in a worker after the first frame (creates the session, see ``launch``)."""
        self.closing_error: PituiError | None = None
        """Closing the session failed (its last write did not reach the disk): said on
        stderr once the screen is gone (see ``launch``)."""
        self.early_notices: list[str] = []
        """Warnings drawn in the first frame (set before the app runs: the start-up
        snapshot's demo notice, see ``launch``)."""
        self.early_notice_sources: list[Callable[[], str | None]] = []
        """Asked for a warning as the first screen is built (e.g. the tmux keyboard
        query started at launch): what they say is in the first frame too."""
        self.startup_listing: list[str] | None = None
        """The start-up listing drawn in the first frame (from the start-up snapshot)."""
        self._ending_run = False
        """An exit is waiting for the run to end (see :meth:`exit`)."""
        self._signals: QuitSignals | None = None
        self._composer_hold: KeyHold | None = None
        """The keys typed before the real composer is mounted wait for it (taken as the
        first screen is built, let go in :meth:`_after_first_frame`)."""

    # ------------------------------------------------------------------ UiHost

    @property
    def live(self) -> LiveSession | None:
        return self._live

    @property
    def chat(self) -> ChatState:
        return self._chat

    @property
    def bridge(self) -> EventBridge | None:
        return self._bridge

    @property
    def loading(self) -> bool:
        return self.startup is not None

    def end_loading(self) -> None:
        self.startup = None

    # The controllers are built on first use (the first frame needs none of them) and
    # their modules imported then: they bring the view's item models and the dispatcher.

    @cached_property
    def key_gate(self) -> KeyGate:
        """Holds the keys typed while a pane's key opens a screen (see its module)."""
        return KeyGate(self._route_key, self.call_after_refresh, self.set_timer)

    def hold_keys(self, limit: float = HOLD_AT_MOST_S) -> KeyHold:
        return self.key_gate.hold(limit)

    async def on_event(self, event: textual_events.Event) -> None:
        if isinstance(event, textual_events.Paste) and not event.is_forwarded:
            if not self.key_gate.take(event):  # held pastes wait in line with the keys
                await super().on_event(event)
        elif not isinstance(event, textual_events.Key):
            await super().on_event(event)
        elif not event.is_forwarded:
            if self._passes_gate(event) or not self.key_gate.take(event):
                await self._route_key(event)
        else:  # back from the focused widget: the bindings run now
            await super().on_event(event)

    def _passes_gate(self, event: textual_events.Key) -> bool:
        """Esc while commands typed during the start-up hold the keys: it cancels them (they
        wait in the prompt controller: a key before it exists loads none of its modules)."""
        prompts = self.__dict__.get("prompts") if self.key_gate.holding and self.loading else None
        return prompts is not None and bool(prompts.cancels_waiting(event.key))

    def on_held_key_done(self, message: HeldKeyDone) -> None:
        """A sibling-switch key is done (see :meth:`_route_key`): the action took its own
        hold if it needs one."""
        message.hold.release()

    async def _route_key(self, event: Held) -> None:
        """Route a key (or a paste) as Textual does; a key that opens a screen holds the
        next ones."""
        if isinstance(event, textual_events.Key):
            focused = self.focused
            screen = self.screen
            if isinstance(focused, OpensScreens) and focused.opens_screen(event):
                self.key_gate.hold()
            elif event.key == "enter" and isinstance(screen, Picks):
                screen.hold_keys_for_pick()  # it lets them go when its flow has opened
            elif event.key in self._screen_action_keys():
                # Its binding runs once the key comes back from the focused widget (or in
                # a widget that takes the key), after the keys behind it were routed:
                # they wait until the key is done, wherever it ends (HeldKeyDone).
                hold = self.key_gate.hold()
                target = self.focused or self.screen  # where Textual forwards it
                await super().on_event(event)
                if event.is_forwarded:
                    target.post_message(HeldKeyDone(hold))
                else:  # a priority binding ran it here, or Esc left a maximised widget
                    hold.release()
                return
        await super().on_event(event)

    def _screen_action_keys(self) -> frozenset[str]:
        """The keys of the actions whose flow opens a screen after some work."""
        keybindings = self.keys.keybindings
        if self._screen_keys is None or self._screen_keys[0] is not keybindings:
            found = frozenset().union(*(key_set(keybindings, a) for a in SCREEN_FLOW_ACTIONS))
            self._screen_keys = (keybindings, found)
        return self._screen_keys[1]

    @cached_property
    def branches(self) -> BranchesController:
        """The branch tree's controller (keeps the pane live, navigates, forks)."""
        from pitui.ui.controllers.branches import BranchesController

        return BranchesController(self)

    @cached_property
    def _replay_memo(self) -> ReplayMemo:
        """The transcript the last rebuild replayed: the next replays past what both share."""
        from pitui.ui.view.replay_memo import ReplayMemo

        return ReplayMemo()

    @cached_property
    def prompts(self) -> PromptController:
        """What Enter, Esc and Alt+Up in the composer mean now."""
        from pitui.ui.controllers.prompt import PromptController

        return PromptController(self)

    @cached_property
    def keys(self) -> KeyController:
        """The user's keys and pi's Ctrl+C / Ctrl+D."""
        from pitui.ui.controllers.keys import KeyController

        return KeyController(self)

    @property
    def main(self) -> MainScreen:
        """The main screen."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    def update_info(self, info: SessionInfo) -> None:
        """New session facts (model, name, window …) for the status bar."""
        self.info = info
        self.main.show_status(info, self._chat)

    # ------------------------------------------------------------------ Textual hooks

    def get_default_screen(self) -> Screen[None]:
        # The first frame draws the composer's stand-in; keys wait for the real one.
        if self._composer_hold is None:
            self._composer_hold = self.key_gate.hold(limit=None)
        self._chat = self._first_state()
        return PituiMainScreen(
            self.info, self._chat, new_session=self.new_session, listing=self.startup_listing
        )

    def _first_state(self) -> ChatState:
        """The state of the first frame: the early notices (see :attr:`early_notices`)."""
        texts = list(self.early_notices)
        for source in self.early_notice_sources:
            text = source()
            if text:
                texts.append(text)
        if not texts:
            return self._chat
        from pitui.ui.view.items import notice  # only with something to say

        state = self._chat
        for text in texts:
            state = notice(state, text, "warning")
        return state

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands, its theme list replaced by the pi themes' picker."""
        from pitui.ui.commands.palette import system_commands  # the palette is open: loaded

        return system_commands(self, super().get_system_commands(screen))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Ctrl+C / Ctrl+D are pi's clear / exit only where they apply (see KeyController)."""
        if action == "pitui" and parameters and isinstance(parameters[0], str):
            return self.keys.applies(parameters[0])
        return True

    async def action_pitui(self, action_id: str) -> None:
        """Every binding's action: run the action table's handler for ``action_id``."""
        from pitui.ui.commands.dispatch import run_action  # lazy: not first-frame

        action = BY_ID.get(action_id)
        if action is not None and action.handler is not None:
            await run_action(self, action, "", action.description)

    # ------------------------------------------------------------------ startup

    async def on_main_screen_ready(self, message: MainScreen.Ready) -> None:
        warnings = self._warnings
        live = self._live
        if live is not None and live.messages:
            from pitui.ui.view.replay import state_from_messages

            self._chat = state_from_messages(live.messages)
            await self.main.show_state(self._chat, self._chat.items)
            self.main.show_status(self.info, self._chat)
        # else: the screen drew the status bar from the same info and state when it mounted.
        if live is not None:
            self.branches.sync()
        if self._bridge is not None:
            self._bridge.start()
        if live is None and self._bridge is None and self.startup is None:
            warnings.append(NO_SESSION_NOTICE)
        if warnings:
            from pitui.ui.view.events import AddNotice  # lazy: not first-frame

            await self.apply([AddNotice(text, "warning") for text in warnings])
        self.call_after_refresh(self._after_first_frame)

    async def _after_first_frame(self) -> None:
        """The screen is drawn: collect garbage again (see ``run``), then load what the
        first frame does not show: the real composer (in its stand-in's place),
        ``keybindings.json`` (a file read in a thread), the autocomplete list (hidden until
        ``/``) and the session. The keys typed until the composer and the user's keys are
        in place wait (:attr:`_composer_hold`), then reach the composer in order.

        This is the point where the app is ready for keys: tests that use the composer
        right after start await it (tests/ui/harness.py ``ready``)."""
        if self.startup is None:
            resume_collection()
        from pitui.ui.controllers.signals import QuitSignals
        from pitui.ui.early_terminal import hand_to_driver

        hand_to_driver(self._driver)  # restore the terminal as pitui found it

        self._signals = QuitSignals(self.exit)
        self._signals.install()
        try:
            await self.main.mount_composer()
            await self.keys.install(self._keybindings)
            await self.main.add_suggestion_list()
        finally:
            if self._composer_hold is not None:
                self._composer_hold.release()
                self._composer_hold = None
        self._save_css_cache()
        if self.startup is not None:
            self.run_worker(self._start(self.startup), group="startup", exit_on_error=False)

    def _save_css_cache(self) -> None:
        """Store the rules parsed for the first frame (in a thread; only when something
        had to be parsed), so the next start reads them instead."""
        from pitui.ui.css_cache import CachedStylesheet

        stylesheet = self.stylesheet
        if isinstance(stylesheet, CachedStylesheet) and stylesheet.cache.dirty:
            cache = stylesheet.cache
            self.run_worker(asyncio.to_thread(cache.save), group="css-cache", exit_on_error=False)

    async def _start(self, startup: Startup) -> None:
        """The session's start-up, with no garbage collection until it is done: its imports
        and objects (the core, a resumed transcript) are long-lived, and collecting them
        young only walks them again and again (~10% of the way to the attached screen)."""
        try:
            await startup(self)
        finally:
            resume_collection()

    async def attach_session(self, live: LiveSession) -> None:
        """Connect a session after the first frame (sessions load after the UI shows):
        replaces any previous event source, rebuilds the view from the session's
        transcript and starts listening to its events."""
        from pitui.ui.view.items import carry_notices
        from pitui.ui.view.replay import state_from_messages

        # The long reads of a resumed session (its view, the footer's file totals, the
        # tree's rows: ~10,000 messages each) run in threads, so keys and frames go on
        # meanwhile; the session becomes the app's only then, so nothing is sent to it
        # (or added to its file) while they read it.
        transcript = await asyncio.to_thread(state_from_messages, live.messages)
        if live.facade is not None:
            await asyncio.to_thread(live.facade.usage_totals)  # cached: rebuild reads it
            await self.branches.prepare(live.facade)
        if self._bridge is not None:
            self._bridge.stop()
        self._live = live
        self.info = live.info(self.info)
        state = carry_notices(self._chat, transcript, [NO_SESSION_NOTICE])
        state = replace(state, follow_up=(*state.follow_up, *self.prompts.early_prompts))
        await self.rebuild(state)
        self._bridge = EventBridge(self, live.subscribe)
        self._bridge.start()

    async def show_preview(self, state: ChatState, *, more: bool = False) -> None:
        """The last messages of a session that is still loading (from the end of its
        file: see the launcher), drawn before the loading goes on; :meth:`attach_session`
        replaces them with the whole session. ``more``: the session goes on above them
        (they fill the pane: laid out at their end from the first frame)."""
        from pitui.ui.view.items import carry_notices

        state = carry_notices(self._chat, state, [NO_SESSION_NOTICE])
        if more:  # the footer's totals are the whole file's: not known from its end
            state = replace(state, usage=UsageTotals(context_tokens=state.usage.context_tokens))
        early = self.prompts.early_prompts
        await self.rebuild(replace(state, follow_up=(*state.follow_up, *early)))
        if more:
            self.main.conversation.open_at_end()
        self.main.branches.show_loading()
        drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def settle() -> None:
            if not drawn.done():
                drawn.set_result(None)

        self.call_after_refresh(settle)
        await drawn

    def exit(
        self,
        result: None = None,
        return_code: int = 0,
        message: RenderableType | None = None,
    ) -> None:
        """Quit (every way out comes here: Ctrl+Q, Ctrl+C twice, /quit, a signal).

        A reply still streaming is first ended as Esc ends it, so the prompt and the
        partial reply are in the session file as an ``aborted`` message; quitting does
        not wait for that a second time.
        """
        live = self._live
        if live is None or self._ending_run or not live.busy:
            super().exit(result, return_code, message)
            return
        self._ending_run = True

        async def end_then_exit() -> None:
            await live.end_run()
            super(PituiApp, self).exit(result, return_code, message)

        self.run_worker(end_then_exit(), group="exit", exit_on_error=False)

    async def on_unmount(self) -> None:
        if self._signals is not None:
            self._signals.remove()
        if self._bridge is not None:
            self._bridge.stop()
        if self._live is not None:
            try:
                await self._live.close()
            except PituiError as exc:  # the screen is going: said after it (launch)
                self.closing_error = exc
        if self._signals is not None:  # saved and closed: a dead terminal cannot hold us
            self._signals.end_if_stuck()

    # ------------------------------------------------------------------ state

    async def apply(self, events: Iterable[AnyEvent]) -> None:
        """Reduce ``events`` and update only the widgets whose items changed."""
        old = self._chat
        from pitui.ui.view.reducer import reduce_all  # lazy: its event models are not first-frame

        new = reduce_all(old, events)
        self._chat = new
        changed = [new.items[p] for p in changed_positions(old.items, new.items)]
        await self.main.show_state(new, changed, old)
        if new.usage is not old.usage:
            self.main.show_status(self.info, new)

    async def on_agent_event_batch(self, message: AgentEventBatch) -> None:
        from pitui.core.session_events import AutoCompactionEndEvent, SessionChangedEvent
        from pitui.ui.view.replay import state_from_messages
        from pitui.ui.view.session_handlers import compaction_done

        events = message.events
        live = self._live
        kinds = {e.kind for e in events if isinstance(e, SessionChangedEvent)} & REBUILD_KINDS
        # An automatic compaction changed the transcript too: rebuild, then put its card
        # at the bottom where the user is looking (as pi).
        done = [compaction_done(e) for e in events if isinstance(e, AutoCompactionEndEvent)]
        cards = [d for d in done if d is not None]
        last = max(
            (
                i
                for i, e in enumerate(events)
                if (isinstance(e, SessionChangedEvent) and e.kind in REBUILD_KINDS)
                or (isinstance(e, AutoCompactionEndEvent) and e.result is not None)
            ),
            default=None,
        )
        if last is None or live is None:
            await self.apply(events)
        else:  # what came after the change is shown on the rebuilt view
            await self.apply(events[: last + 1])
            await self.rebuild(
                state_from_messages(live.messages, self._replay_memo),
                keep_queue=kinds <= {"compaction"},
            )
            after = [*cards, *events[last + 1 :]]
            if after:  # else no await: the handler ends before the rebuilt view's first layout
                await self.apply(after)
        if live is not None and live.facade is not None and live.changes_info(events):
            self.update_info(live.info())
            self.branches.sync()
            self.branches.after_events(events)

    async def rebuild(self, state: ChatState, *, keep_queue: bool = False) -> None:
        """Replace the whole view (after /new, resume, navigation, compaction).

        ``keep_queue``: the messages waiting to be sent stay shown (after a compaction
        they are delivered next; a new or switched session drops them)."""
        if keep_queue:
            state = replace(state, steering=self._chat.steering, follow_up=self._chat.follow_up)
        live = self._live
        # One layout for the whole new view: each await below (clearing, mounting the
        # earlier-items marker, then the item widgets, in two panes) would otherwise let the
        # screen lay out and draw a half-built view, at ~30-70 ms a pass for a long session.
        batch = self.batch_update()
        batch.__enter__()
        try:
            async with self._rebuilding:
                await self._rebuild_batched(state, live)
        except BaseException:
            batch.__exit__(None, None, None)
            raise
        # Removing the old widgets left Textual callbacks, run after the current message,
        # that ask for another layout of their pane: the batch ends after them, so the
        # screen lays the new view out once (not once now and again a frame later).
        self.call_next(batch.__exit__, None, None, None)
        # A resumed transcript is hundreds of thousands of long-lived objects: promote them
        # to the oldest generation unwalked, so young collections never re-walk them. Not a
        # lasting freeze: that would leak every widget a later rebuild throws away.
        gc.freeze()
        gc.unfreeze()

    async def _rebuild_batched(self, state: ChatState, live: LiveSession | None) -> None:
        """The body of :meth:`rebuild`, run while the screen does not update."""
        if live is not None:  # pi's footer sums every entry of the file
            state = replace(state, usage=live.file_usage(state.usage))
        if live is not None or self.main.branches.rows.state is not None:
            # The tree first: the new view's widgets are made with their ‹ i/n › marks.
            state = self.branches.sync_rebuilt(state)  # else no tree to show (or take down)
        self._chat = state
        # Not cleared and mounted anew: both branches share the view up to the branch
        # point, so widgets are kept or updated by item id (widgets/item_resync.py).
        from pitui.ui.widgets.item_resync import resync  # lazy: not first-frame

        for pane in (self.main.conversation, self.main.tools):
            await resync(pane, state)
        await self.main.show_state(state, ())
        self.main.show_status(self.info, state)

    # ------------------------------------------------------------------ widget messages

    async def on_toggle_requested(self, message: ToggleRequested) -> None:
        from pitui.ui.view.events import ToggleItem  # lazy: not first-frame

        await self.apply([ToggleItem(message.item_id)])

    async def on_composer_submitted(self, message: Composer.Submitted) -> None:
        await self.prompts.submit(
            message.text, follow_up=message.follow_up, images=message.images, held=message.key_hold
        )
