"""The Textual app: owns the ChatState, runs the reducer, forwards intents. Kept thin."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from textual._path import CSSPathType
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import Screen

from pitui.core.keybindings import Keybindings
from pitui.core.session.bulk import resume_collection
from pitui.core.usage import UsageTotals
from pitui.errors import PituiError
from pitui.ui.bridge import AgentEventBatch, EventBridge, Subscribe
from pitui.ui.keymap import binding
from pitui.ui.port import SessionPort
from pitui.ui.screens.main import MainScreen
from pitui.ui.theme import ThemeCatalog, fallback_variables, to_textual_theme
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.pvector import changed_positions
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.status_bar import SessionInfo

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.command import Provider

    from pitui.ui.branches import Branches
    from pitui.ui.commands import Commands
    from pitui.ui.launch import LiveSession
    from pitui.ui.quit_signals import QuitSignals
    from pitui.ui.view.reducer import AnyEvent
    from pitui.ui.widgets.base import ToggleRequested  # item widgets: not first-frame

DOUBLE_ESCAPE_SECONDS = 0.5
"""A second Esc within this time on an empty composer runs pi's doubleEscapeAction."""
LOADING_NOTICE = "The session is still loading; press Enter again in a moment."
"""For a ``!command`` typed before the session is up (a prompt is queued instead)."""
NO_SESSION_NOTICE = "No agent session is connected in this build yet: the UI runs without a model."
# Session changes after which the transcript itself is different: rebuild the view.
REBUILD_KINDS = frozenset({"new", "resume", "navigate", "fork", "compaction"})


def _palette_provider() -> type[Provider]:
    """pitui's command-palette provider, imported when the palette first opens (Textual
    accepts a callable in ``COMMANDS`` for this): the first frame has no palette."""
    from pitui.ui.palette import PituiCommandProvider

    return PituiCommandProvider


class PituiApp(App[None], inherit_bindings=False):  # Textual's ctrl+q/ctrl+c have no id
    """pitui's full-screen UI."""

    # What the first, empty screen needs. The item widgets' stylesheets (conversation.tcss,
    # tool_card.tcss) are added with the first item: see widgets/conversation.py.
    CSS_PATH: ClassVar[CSSPathType | None] = [
        "app.tcss",
        "screens/main.tcss",
        "widgets/composer.tcss",
        "widgets/status_bar.tcss",
    ]
    COMMANDS = App.COMMANDS | {_palette_provider}
    # Every binding has pi's action id (core.keybindings); keybindings.json rebinds them.
    BINDINGS: ClassVar[list[BindingType]] = [
        binding("toggleThinking"),
        binding("expandTools"),
        binding("interrupt"),
        binding("clear", priority=True),
        binding("exit", priority=True),
        binding("cycleModelForward"),
        binding("cycleModelBackward"),
        binding("dequeue"),
        binding("selectModel"),
        binding("newSession"),
        binding("resume"),
        binding("hotkeys"),
        binding("contextInspector"),
        binding("fork"),
        binding("previousBranch"),
        binding("nextBranch"),
        binding("commandPalette", priority=True),
        binding("quit", priority=True),
    ]

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
    ) -> None:
        super().__init__()
        self.live: LiveSession | None = live
        """The connected AgentSession and its status facts (commands work through it)."""
        self.session = session if session is not None or live is None else live.session
        self.chat = ChatState()
        self.info = info or (live.info() if live is not None else SessionInfo(cwd=os.getcwd()))
        self._catalog = themes
        self._theme_name = theme_name
        self._warnings = self._install_themes()
        """Theme problems, shown once the screen is up."""
        self._keybindings = keybindings
        """keybindings.json's bindings (None: read the file after the first frame)."""
        source = event_source or (self.session.subscribe if self.session is not None else None)
        self.bridge = EventBridge(self, source) if source is not None else None
        self._last_escape = -1.0
        self.early_prompts: list[str] = []
        """Prompts sent before the session was up, in order (the launcher sends them)."""
        self.new_session = False
        """The startup creates a new session (set before the app runs; see ``launch``)."""
        self.startup: Callable[[PituiApp], Awaitable[None]] | None = None
        """Run in a worker after the first frame (creates the session, see ``launch``)."""
        self._ending_run = False
        """An exit is waiting for the run to end (see :meth:`exit`)."""
        self._signals: QuitSignals | None = None

    @cached_property
    def commands(self) -> Commands:
        """Slash commands, palette entries and keybindings. Built on first use: the first
        frame needs none of them (they are installed just after it, see
        ``_after_first_frame``), and the module and its command table cost import time."""
        from pitui.ui.commands import Commands

        return Commands(self)

    @cached_property
    def branches(self) -> Branches:
        """The branch tree's controller (keeps the pane live, navigates, forks)."""
        from pitui.ui.branches import Branches

        return Branches(self)

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(self.info, self.chat, new_session=self.new_session)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands, its theme list replaced by the pi themes' picker."""
        from pitui.ui.palette import system_commands  # the palette is open: loaded

        return system_commands(self, super().get_system_commands(screen))

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return fallback_variables()

    @property
    def main(self) -> MainScreen:
        """The main screen."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    # ------------------------------------------------------------------ startup

    async def on_main_screen_ready(self, message: MainScreen.Ready) -> None:
        warnings = self._warnings
        if self.session is not None and self.session.messages:
            from pitui.ui.view.replay import state_from_messages

            self.chat = state_from_messages(self.session.messages)
            await self.main.show_state(self.chat, self.chat.items)
            self.main.show_status(self.info, self.chat)
        # else: the screen drew the status bar from the same info and state when it mounted.
        if self.live is not None:
            self.branches.sync()
        if self.bridge is not None:
            self.bridge.start()
        if self.session is None and self.bridge is None and self.startup is None:
            warnings.append(NO_SESSION_NOTICE)
        if warnings:
            from pitui.ui.view.events import AddNotice  # lazy: not first-frame

            await self.apply([AddNotice(text, "warning") for text in warnings])
        self.call_after_refresh(self._after_first_frame)

    async def _after_first_frame(self) -> None:
        """The screen is drawn: collect garbage again (see ``run``), then load what the
        first frame does not show: ``keybindings.json`` (a file read in a thread, until
        then the default keys apply), the autocomplete list (hidden until ``/``) and the
        session."""
        if self.startup is None:
            resume_collection()
        from pitui.ui.quit_signals import QuitSignals

        self._signals = QuitSignals(self.exit)
        self._signals.install()
        await self.commands.install(self._keybindings)
        await self.main.add_suggestion_list()
        if self.startup is not None:
            self.run_worker(self._start(self.startup), group="startup", exit_on_error=False)

    async def _start(self, startup: Callable[[PituiApp], Awaitable[None]]) -> None:
        """The session's start-up, with no garbage collection until it is done: its imports
        and objects (the core, a resumed transcript) are long-lived, and collecting them
        young only walks them again and again (~10% of the way to the attached screen)."""
        try:
            await startup(self)
        finally:
            resume_collection()

    def _install_themes(self) -> list[str]:
        """Register the pi themes and make the chosen one current, before the stylesheet is
        first parsed: setting ``theme`` later re-parses every stylesheet (~25 ms) and drops
        the parse cache, so the first screen's widget CSS is parsed from scratch again."""
        catalog = self._catalog if self._catalog is not None else ThemeCatalog()
        for theme in catalog.themes.values():
            self.register_theme(to_textual_theme(theme))
        warnings = [str(p) for p in catalog.problems]
        chosen = catalog.themes.get(self._theme_name)
        if chosen is not None:
            self._set_initial_theme(chosen.textual_name, dark=chosen.dark)
        elif catalog.themes:
            warnings.append(f"Unknown theme {self._theme_name!r}")
        return warnings

    def _set_initial_theme(self, name: str, *, dark: bool) -> None:
        """What ``App._watch_theme`` does, without scheduling a CSS re-parse (nothing has
        been parsed yet: the stylesheet is built once, with these variables)."""
        self.set_reactive(App.theme, name)
        self.stylesheet.set_variables(self.get_css_variables())
        stale = {c: False for c in self.classes if c.startswith("-theme-")}
        classes = {**stale, f"-theme-{name}": True, "-dark-mode": dark, "-light-mode": not dark}
        self.update_classes(classes, update=False)
        self._refresh_truecolor_filter(self.ansi_theme)

    async def attach_session(self, session: SessionPort, live: LiveSession | None = None) -> None:
        """Connect a session after the first frame (sessions load after the UI shows).

        Replaces any previous event source, rebuilds the view from the session's
        transcript and starts listening to its events. ``live``: the full AgentSession
        behind ``session``, for commands and the status bar.
        """
        from pitui.ui.view.items import carry_notices
        from pitui.ui.view.replay import state_from_messages

        # The long reads of a resumed session (its view, the footer's file totals, the
        # tree's rows: ~10,000 messages each) run in threads, so keys and frames go on
        # meanwhile; the session becomes the app's only then, so nothing is sent to it
        # (or added to its file) while they read it.
        transcript = await asyncio.to_thread(state_from_messages, session.messages)
        if live is not None:
            await asyncio.to_thread(live.session.usage_totals)  # cached: rebuild reads it
            await self.branches.prepare(live.session)
        if self.bridge is not None:
            self.bridge.stop()
        self.live = live
        self.session = session
        if live is not None:
            self.info = live.info()
        state = carry_notices(self.chat, transcript, [NO_SESSION_NOTICE])
        state = replace(state, follow_up=(*state.follow_up, *self.early_prompts))
        await self.rebuild(state)
        self.bridge = EventBridge(self, session.subscribe)
        self.bridge.start()

    async def show_preview(self, state: ChatState, *, more: bool = False) -> None:
        """The last messages of a session that is still loading (from the end of its
        file: see ``Launcher``), drawn before the loading goes on; :meth:`attach_session`
        replaces them with the whole session. ``more``: the session goes on above them
        (they fill the pane: laid out at their end from the first frame)."""
        from pitui.ui.view.items import carry_notices

        state = carry_notices(self.chat, state, [NO_SESSION_NOTICE])
        if more:  # the footer's totals are the whole file's: not known from its end
            state = replace(state, usage=UsageTotals(context_tokens=state.usage.context_tokens))
        await self.rebuild(replace(state, follow_up=(*state.follow_up, *self.early_prompts)))
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
        live = self.live
        if live is None or self._ending_run or not live.busy:
            super().exit(result, return_code, message)
            return
        self._ending_run = True

        async def end_then_exit() -> None:
            await live.end_run()
            super(PituiApp, self).exit(result, return_code, message)

        self.run_worker(end_then_exit(), group="exit", exit_on_error=False)

    @property
    def themes(self) -> ThemeCatalog:
        """The pi themes found at start-up."""
        return self._catalog if self._catalog is not None else ThemeCatalog()

    def switch_theme(self, name: str) -> bool:
        """Switch to the pi theme called ``name``; False if there is no such theme."""
        theme = self._catalog.themes.get(name) if self._catalog is not None else None
        if theme is None:
            return False
        self.theme = theme.textual_name
        return True

    async def on_unmount(self) -> None:
        if self._signals is not None:
            self._signals.remove()
        if self.bridge is not None:
            self.bridge.stop()
        if self.live is not None:
            await self.live.close()
        if self._signals is not None:  # saved and closed: a dead terminal cannot hold us
            self._signals.end_if_stuck()

    # ------------------------------------------------------------------ state

    async def apply(self, events: Iterable[AnyEvent]) -> None:
        """Reduce ``events`` and update only the widgets whose items changed."""
        old = self.chat
        from pitui.ui.view.reducer import reduce_all  # lazy: its event models are not first-frame

        new = reduce_all(old, events)
        self.chat = new
        changed = [new.items[p] for p in changed_positions(old.items, new.items)]
        await self.main.show_state(new, changed, old)
        if new.usage is not old.usage:
            self.main.show_status(self.info, new)

    async def on_agent_event_batch(self, message: AgentEventBatch) -> None:
        from pitui.core.session_events import AutoCompactionEndEvent, SessionChangedEvent
        from pitui.ui.view.replay import state_from_messages
        from pitui.ui.view.session_handlers import compaction_done

        events = message.events
        live = self.live
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
        if last is None or self.session is None:
            await self.apply(events)
        else:  # what came after the change is shown on the rebuilt view
            await self.apply(events[: last + 1])
            await self.rebuild(
                state_from_messages(self.session.messages), keep_queue=kinds <= {"compaction"}
            )
            await self.apply([*cards, *events[last + 1 :]])
        if live is not None and live.changes_info(events):
            self.update_info(live.info())
            self.branches.sync()

    async def rebuild(self, state: ChatState, *, keep_queue: bool = False) -> None:
        """Replace the whole view (after /new, resume, navigation, compaction).

        ``keep_queue``: the messages waiting to be sent stay shown (after a compaction
        they are delivered next; a new or switched session drops them)."""
        if keep_queue:
            state = replace(state, steering=self.chat.steering, follow_up=self.chat.follow_up)
        # One layout for the whole new view: each await below (clearing, mounting the
        # earlier-items marker, then the item widgets, in two panes) would otherwise let the
        # screen lay out and draw a half-built view, at ~30-70 ms a pass for a long session.
        with self.batch_update():
            for pane in (self.main.conversation, self.main.tools):
                await pane.clear()
            if self.live is not None:  # pi's footer sums every entry of the file
                state = replace(state, usage=self.live.file_usage(state.usage))
            self.chat = state
            await self.main.show_state(state, state.items)
            self.main.show_status(self.info, state)
            if self.live is not None or self.main.branches.rows.state is not None:
                self.branches.sync(rebuilt=True)  # else no tree to show (or to take down)
        # A resumed transcript is hundreds of thousands of long-lived objects: promote them
        # to the oldest generation unwalked, so young collections never re-walk them. Not a
        # lasting freeze: that would leak every widget a later rebuild throws away.
        gc.freeze()
        gc.unfreeze()

    async def on_toggle_requested(self, message: ToggleRequested) -> None:
        from pitui.ui.view.events import ToggleItem  # lazy: not first-frame

        await self.apply([ToggleItem(message.item_id)])

    # ------------------------------------------------------------------ intents

    async def on_composer_submitted(self, message: Composer.Submitted) -> None:
        from pitui.ui.view.events import AddNotice, QueueMessage  # lazy: not first-frame

        text = message.text.strip()
        session = self.session
        if self.commands.is_command(text):
            self.commands.run(text)
        elif session is None and self.startup is not None and not text.startswith("!"):
            # Still loading: queued, and sent in order once the session is up.
            self.early_prompts.append(text)
            await self.apply([QueueMessage(text, "followUp")])
        elif session is None and self.startup is not None:  # still loading: keep the text
            self.main.query_one(Composer).load_text(message.text)
            await self.apply([AddNotice(LOADING_NOTICE)])
        elif session is None:
            await self.apply([AddNotice(NO_SESSION_NOTICE, "warning")])
        elif text.startswith("!") and text.lstrip("!").strip():
            command = text[2:] if text.startswith("!!") else text[1:]
            excluded = text.startswith("!!")
            self._run(session.run_bash(command.strip(), exclude_from_context=excluded))
        elif self.live is not None and self.live.session.compaction.is_compacting:
            session.follow_up(text)  # sent once the compaction is done (pi)
            await self.apply([QueueMessage(text, "followUp")])
        elif self.chat.busy or session.is_streaming:
            if message.follow_up:
                session.follow_up(text)
                await self.apply([QueueMessage(text, "followUp")])
            else:
                session.steer(text)
                await self.apply([QueueMessage(text, "steer")])
        else:
            self._run(session.prompt(text))

    def _run(self, work: Awaitable[None]) -> None:
        """Run session work off the message loop; its errors become notices."""

        async def guarded() -> None:
            from pitui.ui.view.events import AddNotice  # lazy: not first-frame

            try:
                await work
            except PituiError as exc:
                await self.apply([AddNotice(f"Error: {exc}", "error")])

        self.run_worker(guarded(), group="session", exit_on_error=False)

    async def action_cycle_thinking(self) -> None:
        """Shift+Tab: the next thinking level (the status bar follows its event)."""
        if self.live is not None:
            await self.live.cycle_thinking_level()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Ctrl+C / Ctrl+D are pi's clear / exit only on the main screen (Ctrl+D: empty)."""
        if action in ("clear_editor", "exit_if_empty"):
            return self.commands.editor_key_applies(action)
        return True

    def action_clear_editor(self) -> None:
        """Ctrl+C: clear the composer (twice within 0.5 s: quit)."""
        self.commands.clear_editor()

    def action_exit_if_empty(self) -> None:
        """Ctrl+D on an empty composer: quit."""
        self.exit()

    async def action_cycle_model(self, step: int) -> None:
        """Next / previous usable model (pi's cycleModelForward / Backward)."""
        await self.commands.guarded(self.commands.cycle_model(step))

    def action_select_model(self) -> None:
        """Ctrl+L: the model picker."""
        from pitui.ui.screens.models import open_model_picker  # lazy: not first-frame

        open_model_picker(self.commands)

    def action_new_session(self) -> None:
        """Start a new session (``/new``; unbound by default, as in pi)."""
        self.commands.run("/new")

    def action_resume(self) -> None:
        """The resume picker (``/resume``; unbound by default, as in pi)."""
        self.commands.run("/resume")

    def action_hotkeys(self) -> None:
        """Show every binding (``/hotkeys``)."""
        self.commands.run("/hotkeys")

    def action_context_inspector(self) -> None:
        """What the model sees on the next request (``/context``)."""
        self.commands.run("/context")

    async def action_toggle_thinking(self) -> None:
        from pitui.ui.view.events import ToggleAllThinking  # lazy: not first-frame

        await self.apply([ToggleAllThinking()])

    async def action_toggle_tools(self) -> None:
        from pitui.ui.view.events import ToggleAllTools  # lazy: not first-frame

        await self.apply([ToggleAllTools()])

    async def action_interrupt(self) -> None:
        """Esc: cancel a branch summary or a compaction; else put the queued texts back
        into the composer and abort (pi's order); on an idle, empty composer, twice in a
        row: pi's ``doubleEscapeAction`` (focus the branch tree)."""
        session = self.live.session if self.live is not None else None
        if session is not None and session.navigation.is_summarizing:
            session.navigation.abort()
        elif session is not None and session.compaction.is_compacting:
            session.abort_compaction()
        elif self.session is not None and (self.chat.busy or self.chat.bash_id is not None):
            await self.action_dequeue()
            self.session.abort()
        elif session is not None and not self.main.query_one(Composer).text:
            self._double_escape(session.settings.double_escape_action)

    def _double_escape(self, action: str) -> None:
        now = time.monotonic()
        if now - self._last_escape >= DOUBLE_ESCAPE_SECONDS:
            self._last_escape = now
            return
        self._last_escape = -1.0
        if action == "tree":
            self.main.focus_branches()
        elif action == "fork":
            self.branches.open_fork_picker()

    def action_switch_branch(self, step: int) -> None:
        """Alt+← / Alt+→: a user message's previous / next sibling branch."""
        self.branches.switch_sibling(step)

    def action_fork(self) -> None:
        """The fork picker (``/fork``; unbound by default, as in pi)."""
        self.branches.open_fork_picker()

    def on_branch_tree_navigate(self, message: BranchTree.Navigate) -> None:
        self.branches.navigate(message.entry_id)

    def on_branch_tree_edit_label(self, message: BranchTree.EditLabel) -> None:
        self.branches.edit_label(message.entry_id, message.label)

    def on_branch_tree_fork(self, message: BranchTree.Fork) -> None:
        self._run(self.branches.fork(message.entry_id))

    async def action_dequeue(self) -> None:
        """Alt+Up: take queued messages back into the composer."""
        from pitui.ui.view.events import ClearQueue  # lazy: not first-frame

        if self.session is not None:
            texts = self.session.dequeue_all()
        else:  # prompts sent while the session loads
            texts, self.early_prompts = self.early_prompts, []
        if texts:
            composer = self.main.query_one(Composer)
            current = composer.text
            composer.load_text("\n\n".join([*texts, current] if current else texts))
        await self.apply([ClearQueue()])

    def update_info(self, info: SessionInfo) -> None:
        """New session facts (model, name, window …) for the status bar."""
        self.info = info
        self.main.show_status(info, self.chat)


def run(args: argparse.Namespace) -> int:
    """Entry point of the TUI mode (called by ``pitui.cli``)."""
    from pitui.ui.launch import create_app

    # No collection before the first frame (a full pass over Textual's objects is ~20 ms;
    # pitui.cli already paused it for the imports); what was imported so far is set aside
    # until then, so the first young collection after it does not walk every module
    # object either.
    gc.freeze()
    gc.disable()
    create_app(args).run()
    return 0
