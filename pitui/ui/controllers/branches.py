"""What the Branches pane does: keep it live, navigate, label, fork; sibling switching.

The pane posts intents (:class:`~pitui.ui.widgets.branch_tree.BranchTree` messages, which
the app routes here) and the ``/fork`` command and Alt+← / Alt+→ call in here; the work
itself is the AgentSession's (``navigate``, ``set_label``, ``fork``, ``switch_branch``).
After a switch the session emits ``session_changed``; the app rebuilds the conversation
and :meth:`sync` gives the pane the new file's tree. Modal flows (navigate → chooser →
custom prompt) read top to bottom in a worker (see :func:`~pitui.ui.host.push_for_result`).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar

from pitui.errors import PituiError
from pitui.ui.controllers.branch_marks import item_switches
from pitui.ui.host import push_for_result
from pitui.ui.view.events import AddNotice, ProgressEnded, ProgressStarted, ShowBranchSwitches
from pitui.ui.view.state import AssistantItem, UserItem
from pitui.ui.widgets.key_gate import let_go

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.core.checkpoints.file_diffs import FileDiff
    from pitui.core.checkpoints.session_files import Comparison
    from pitui.core.session.store import SessionStore
    from pitui.ui.host import UiHost
    from pitui.ui.screens.fork import ForkPicker
    from pitui.ui.screens.navigate import Navigation, SummaryChoice, SummaryChooser
    from pitui.ui.view.chat_state import ChatState
    from pitui.ui.view.tree_pane import TreePaneState  # loads with a session (models)
    from pitui.ui.widgets.key_gate import KeyHold

_T = TypeVar("_T")

ALREADY_HERE = "Already at this point"
Cancelled: TypeAlias = Literal["cancelled"]
CANCELLED: Cancelled = "cancelled"
"""Esc on the restore question: the move does not happen."""
SUMMARY_OPERATION = "branch-summary"


class BranchesController:
    """The app's controller for the branch tree."""

    def __init__(self, host: UiHost) -> None:
        self.host = host
        self._store: SessionStore | None = None
        self._path_users: dict[str, tuple[str, int, int]] = {}
        """Conversation user item id → (entry id, i, n) on the current path."""
        self._prepared: tuple[SessionStore, TreePaneState] | None = None
        self._restored: str | None = None
        """What the last restore did, said after the move it came with."""

    @property
    def session(self) -> AgentSession | None:
        live = self.host.live
        return live.facade if live is not None else None

    # ------------------------------------------------------------------ live rows

    def sync(self) -> None:
        """Bring the pane up to date with the session file (a few rows, or a new tree
        after a switch of file), and the conversation's sibling-branch marks with it."""
        if self._sync_rows():
            switches = self._switches(self.host.chat)
            if switches is not None:
                self.host.run_worker(self.host.apply([switches]), group="branches")

    def sync_rebuilt(self, chat: ChatState) -> ChatState:
        """:meth:`sync` for a conversation being rebuilt: ``chat`` (not shown yet) comes
        back with its sibling-branch marks, so the rebuilt view is drawn once, marked."""
        self._sync_rows()  # the marks are drawn again whatever changed
        switches = self._switches(chat)
        if switches is None:
            return chat
        from pitui.ui.view.reducer import reduce_all  # lazy: its event models are not first-frame

        return reduce_all(chat, [switches])

    def _sync_rows(self) -> bool:
        """The pane's part of :meth:`sync`; True when the marks may have changed."""
        rows = self.host.main.branches.rows
        session = self.session
        if session is None:
            if rows.state is not None:
                rows.show(None)
            return False
        store = session.store
        if store is not self._store or rows.state is None:
            self._store = store
            state = self._tree_state(session)
            rows.show(state)
            # Start-up has read the typed entries' lines for the last time: they can go.
            self.host.run_worker(partial(_release_lines, store), thread=True, group="lines")
        else:
            change = rows.state.sync(store.labels(), store.get_leaf_id())
            rows.apply(change)
            if not change.reset:
                return False  # entries added under the leaf leave the path's siblings as they were
            # Another branch: its entries were typed for the context; their lines can go.
            self.host.run_worker(partial(_release_lines, store), thread=True, group="lines")
        return True

    async def prepare(self, session: AgentSession) -> None:
        """Build the rows of ``session``'s tree in a thread (a long session has ~10,000),
        for the :meth:`sync` that shows it."""
        self._prepared = await asyncio.to_thread(self._new_state, session)

    def _tree_state(self, session: AgentSession) -> TreePaneState:
        """The tree of ``session`` as it is now (the one :meth:`prepare` built, if so)."""
        prepared, self._prepared = self._prepared, None
        if prepared is None or prepared[0] is not session.store:
            return self._new_state(session)[1]
        state = prepared[1]
        state.sync(session.store.labels(), session.store.get_leaf_id())  # anything new since
        return state

    @staticmethod
    def _new_state(session: AgentSession) -> tuple[SessionStore, TreePaneState]:
        from pitui.ui.view.tree_pane import TreePaneState

        store = session.store
        mode = session.settings.tree_filter_mode
        return store, TreePaneState(store.table, store.labels(), store.get_leaf_id(), mode)

    def _switches(self, chat: ChatState) -> ShowBranchSwitches | None:
        """The marks of ``chat``'s user messages that have sibling branches (None: no
        message has or had one). They are the path's user messages in context, so they
        pair up from the end."""
        state = self.host.main.branches.rows.state
        session = self.session
        if state is None or session is None:
            return None
        roles = (getattr(m, "role", None) for m in session.messages)
        view = state.view
        users, replies = view.branch_switches(), view.branch_switches("assistant")
        self._path_users = item_switches(chat, roles, users, replies)
        switches = {item: (i, n) for item, (_, i, n) in self._path_users.items() if n > 1}
        marked = (UserItem, AssistantItem)
        if switches or any(isinstance(i, marked) and i.branch for i in chat.items):
            return ShowBranchSwitches(switches)
        return None

    def switch_sibling(self, step: int, item_id: str | None = None) -> None:
        """Alt+← / Alt+→: the previous / next sibling branch of a user message (the given
        item, else the latest with siblings), at its newest entry, without a summary."""
        rows = self.host.main.branches.rows
        session = self.session
        if rows.state is None or session is None:
            return
        # Every branch point of the path, whatever starts its branches: the chosen
        # message's, else the deepest (a branch that starts with neither a user message
        # nor a reply has no marker, and Alt+←/→ reach its siblings all the same).
        branches = rows.state.view.path_branches()
        by_user = {b.user or b.assistant: b.child for b in branches if b.user or b.assistant}
        marked = self._path_users.get(item_id) if item_id is not None else None
        chosen = by_user.get(marked[0]) if marked is not None else None
        if chosen is None and branches:
            chosen = branches[-1].child
        target = rows.state.view.sibling_leaf(chosen, step) if chosen else None
        if target is not None and self._refuses_move(session):
            return
        if target is None:
            self.host.run_worker(self.host.apply([AddNotice("No other branch here")]))
            return
        held = self.host.hold_keys()  # until the Restore files question is open (or none is)
        self.host.run_worker(self._switch_flow(session, target, held), exit_on_error=False)

    def _refuses_move(self, session: AgentSession) -> bool:
        """True (and a notice) while the session may not move its leaf: said before any
        chooser opens, not after the user has answered it."""
        try:
            session.check_tree_move()
        except PituiError as exc:
            self.host.run_worker(self.host.apply([AddNotice(str(exc), "warning")]))
            return True
        return False

    async def _switch_flow(self, session: AgentSession, target: str, held: KeyHold) -> None:
        """The sibling's files (when they differ and the user wants them), then the switch."""
        files = await self._files_for_move(target, held=held)
        if files == CANCELLED:
            return
        await self.host.guarded(self._restore_then(files, session.switch_branch(target)))

    # ------------------------------------------------------------------ navigate

    def navigate(self, entry_id: str) -> None:
        """Enter on a row: pi's flow (already here / chooser / summary / new leaf), the
        chooser offering the point's files when they differ from the working tree."""
        session = self.session
        if session is None:
            return
        if entry_id == session.store.get_leaf_id():
            self.host.run_worker(self.host.apply([AddNotice(ALREADY_HERE)]))
            return
        if self._refuses_move(session):
            return
        chooser: tuple[SummaryChooser, asyncio.Future[Navigation | None]] | None = None
        if not session.settings.branch_summary.skip_prompt:
            from pitui.ui.screens.navigate import SummaryChooser

            asks = session.settings.checkpoints.restore == "ask" and session.checkpoints.enabled
            screen = SummaryChooser(self._row_text(entry_id), files_pending=asks)
            chooser = (screen, push_for_result(self.host, screen))
        empty = not self.host.main.composer.text
        flow = self._navigate_flow(entry_id, chooser, empty)
        self.host.run_worker(flow, group="navigate", exit_on_error=False)

    async def _navigate_flow(
        self,
        entry_id: str,
        chooser: tuple[SummaryChooser, asyncio.Future[Navigation | None]] | None,
        empty: bool,
    ) -> None:
        """The chooser's answer (summary and files; without a chooser, the files'
        own question), a custom prompt if asked for, then the restore and the
        navigation; Esc on any screen: back to the tree, nothing done. ``empty``: the
        composer was empty when Enter was pressed."""
        from pitui.ui.screens.navigate import CustomPromptScreen

        let_keys_go = chooser[0].let_keys_go if chooser is not None else lambda: None
        try:
            if chooser is None:
                files = await self._files_for_move(entry_id)
                choice: SummaryChoice | None = None if files == CANCELLED else "none"
            else:
                files, choice = await self._choose(entry_id, *chooser)
            prompt: str | None = None
            if choice == "custom":
                asked = push_for_result(self.host, CustomPromptScreen())
                let_keys_go()  # typed after the choice: into the prompt
                prompt = await asked
                if prompt is None:
                    choice = None
            if choice is not None:
                # Chosen: the tree is done. Keys typed while the session moves go to the
                # composer (not the tree's search), and Esc to the app (it cancels the
                # summary).
                self.host.main.focus_now(self.host.main.composer)
        finally:
            let_keys_go()  # typed after the choice: to the composer (or the tree, on Esc)
        if choice is None or files == CANCELLED:
            self.reopen(entry_id)
            return
        if files is not None and not await self._restore(files):
            return
        await self._navigate(entry_id, choice, prompt, empty)
        self._say_restored()

    async def _choose(
        self, entry_id: str, screen: SummaryChooser, answer: asyncio.Future[Navigation | None]
    ) -> tuple[Comparison | None, SummaryChoice | None]:
        """Compare the files while the chooser is open and offer them there; the
        comparison to restore (if chosen, or ``checkpoints.restore`` is "always") and the
        summary choice (None: Esc)."""
        session = self.session
        always = session is not None and session.settings.checkpoints.restore == "always"
        found: tuple[Comparison, list[FileDiff]] | None = None
        try:
            found = await self._compare(entry_id)
        finally:  # the chooser may be waiting for the files, whatever happened
            screen.offer_files(found[1] if found is not None and not always else None)
        navigation = await answer
        if navigation is None:
            return None, None
        wanted = found is not None and (navigation.restore_files or always)
        return (found[0] if found is not None and wanted else None), navigation.summary

    async def _compare(self, entry_id: str) -> tuple[Comparison, list[FileDiff]] | None:
        """The files of ``entry_id`` against the working tree (None: the same, or
        ``checkpoints.restore`` is "never", or they cannot be compared: said)."""
        session = self.session
        if session is None or session.settings.checkpoints.restore == "never":
            return None
        return await self._compared(session.checkpoints.preview_for(entry_id))

    async def _compared(self, comparing: Awaitable[_T]) -> _T | None:
        """What ``comparing`` finds; None, said in a notice, when the files cannot be
        compared."""
        try:
            return await comparing
        except PituiError as exc:
            await self.host.apply([AddNotice(f"Files not compared: {exc}", "warning")])
            return None

    # ------------------------------------------------------------------ files

    async def follow_files(self, label: str, held: KeyHold | None = None) -> None:
        """After ``/resume`` or ``/import`` switched the session: its leaf's files, when
        they differ from the working tree and the user (or ``checkpoints.restore``) wants
        them. The switch has happened, so Esc keeps the files as they are. ``held``: keys
        typed since the pick, let go once the question is open (or none is asked)."""
        session = self.session
        leaf = session.store.get_leaf_id() if session is not None else None
        if leaf is None:
            let_go(held)
            return
        files = await self._files_for_move(leaf, label, held=held)
        if files is not None and files != CANCELLED and await self._restore(files):
            self._say_restored()

    async def _files_for_move(
        self, entry_id: str, label: str | None = None, *, held: KeyHold | None = None
    ) -> Comparison | Cancelled | None:
        """The files a move to ``entry_id`` (shown as ``label``, default: its tree row)
        brings, when they differ from the working tree and the user (or
        ``checkpoints.restore``) wants them; ``CANCELLED``: Esc. ``held``: keys held
        since the move's key, let go once the question is open (or none is asked)."""
        try:
            session = self.session
            found = await self._compare(entry_id)
            if found is None or session is None:
                return None
            comparison, diffs = found
            if session.settings.checkpoints.restore == "always":
                return comparison
            from pitui.ui.screens.files_restore import RestoreFilesQuestion

            target = label or self._row_text(entry_id) or f"entry {entry_id}"
            answer = push_for_result(self.host, RestoreFilesQuestion(target, diffs))
        finally:
            let_go(held)
        choice = await answer
        if choice is None:
            return CANCELLED
        return comparison if choice == "restore" else None

    async def _restore(self, comparison: Comparison) -> bool:
        """Restore the files (the working tree is checkpointed first); False on failure.
        What was done is said once the move that follows has redrawn the conversation."""
        session = self.session
        if session is None:
            return False
        try:
            result = await session.checkpoints.restore(comparison.point)
        except PituiError as exc:
            await self.host.apply([AddNotice(f"Files not restored: {exc}", "error")])
            return False
        self._restored = result.summary()
        return True

    def _say_restored(self) -> None:
        """Say what the restore did (if one came with the move), and bring the status
        bar's "files differ" up to date for the new point."""
        text, self._restored = self._restored, None
        if text:  # not replaced by the move's own line ("Cloned to a new session: …")
            self.host.notice_after_events(text, lasting=True)
        session = self.session
        if session is not None and session.checkpoints.enabled:
            self.host.run_worker(self._refresh_files_mark(session), group="files-mark")

    def after_events(self, events: Sequence[object]) -> None:
        """After a run or a switch of session file: is the working tree still the
        current point's checkpoint? (Files edited outside pitui meanwhile show as
        "files differ" in the status bar.) In the background: it takes a snapshot."""
        kinds = {getattr(e, "type", None) for e in events}
        session = self.session
        asks = kinds & {"agent_end", "session_changed"}
        if asks and session is not None and session.checkpoints.enabled:
            mark = self._refresh_files_mark(session, after_run=True)
            self.host.run_worker(mark, group="files-mark")

    async def _refresh_files_mark(self, session: AgentSession, *, after_run: bool = False) -> None:
        await session.checkpoints.refresh_differs(after_run=after_run)
        self.host.refresh_status()

    async def _restore_then(self, files: Comparison | None, move: Awaitable[None]) -> None:
        if files is not None and not await self._restore(files):
            if inspect.iscoroutine(move):
                move.close()
            return
        await move
        self._say_restored()

    def show_files(self, entry_id: str | None = None) -> None:
        """Shift+D in the pane, ``/diff``: what a restore to ``entry_id`` (default: the
        leaf) would change in the working tree."""
        self.host.run_worker(self._show_files(entry_id), exit_on_error=False)

    async def _show_files(self, entry_id: str | None) -> None:
        session = self.session
        target = entry_id or (session.store.get_leaf_id() if session is not None else None)
        if session is None or target is None:
            return
        found = await self._compared(session.checkpoints.preview_for(target))
        if found is None:
            note = "No file differences at this point (or no checkpoint is known there)"
            await self.host.apply([AddNotice(note)])
            return
        from pitui.ui.screens.files_restore import FilesPreview

        self.host.push_screen(FilesPreview(self._row_text(target), found[1]))

    def _row_text(self, entry_id: str) -> str:
        state = self.host.main.branches.rows.state
        index = state.view.index_of(entry_id) if state is not None else None
        return state.view.row(index).text.plain if state is not None and index is not None else ""

    async def _navigate(
        self, entry_id: str, choice: SummaryChoice, prompt: str | None, empty: bool | None = None
    ) -> None:
        from pitui.core.session_navigation import NavigationCancelled

        session = self.session
        if session is None:
            return
        summarize = choice != "none"
        if summarize:
            started = ProgressStarted(SUMMARY_OPERATION, "Summarizing branch", time.monotonic())
            await self.host.apply([started])
        try:
            text = await session.navigate(entry_id, summarize=summarize, custom_instructions=prompt)
        except NavigationCancelled:
            await self.host.apply(
                [ProgressEnded(SUMMARY_OPERATION, "Branch summary cancelled", "warning")]
            )
            self.reopen(entry_id)
            return
        except PituiError as exc:
            await self.host.apply([ProgressEnded(SUMMARY_OPERATION, f"Error: {exc}", "error")])
            return
        self._show_whole_tree(session.store.get_leaf_id())
        self.put_in_composer(text, empty_before=empty)

    def _show_whole_tree(self, leaf: str | None) -> None:
        """After a navigation the pane shows every row again, the new leaf selected (as
        pi's selector when it reopens): a search typed before would hide the branch the
        next prompt starts."""
        rows = self.host.main.branches.rows
        state = rows.state
        if state is None or not state.clear_query():
            return
        if leaf is not None:
            state.select_entry(leaf)
        rows.show(state)

    def reopen(self, entry_id: str) -> None:
        """Back to the tree with ``entry_id`` selected (pi reopens the tree there)."""
        rows = self.host.main.branches.rows
        if rows.state is not None:
            rows.state.select_entry(entry_id)
            rows.show(rows.state)
        self.host.main.focus_branches()

    def put_in_composer(self, text: str | None, *, empty_before: bool | None = None) -> None:
        """A user message's text goes to the composer, only if it is empty (as pi); with
        ``empty_before``, if it was when the move was asked for: what was typed since,
        while the move ran, goes on after the text put back."""
        composer = self.host.main.composer
        if empty_before is None:
            empty_before = not composer.text
        if text and empty_before:
            composer.put_text(text + composer.text)
        self.host.main.leave_branches()

    # ------------------------------------------------------------------ label, fork

    def edit_label(self, entry_id: str, label: str | None) -> None:
        """Shift+L: a label editor; empty clears."""
        from pitui.ui.screens.label import LabelEditor

        editor = push_for_result(self.host, LabelEditor(self._row_text(entry_id), label))
        self.host.run_worker(self._save_label(entry_id, editor), exit_on_error=False)

    async def _save_label(self, entry_id: str, editor: asyncio.Future[str | None]) -> None:
        text = await editor
        self.host.main.focus_branches()
        session = self.session
        if text is not None and session is not None:
            await self.host.guarded(session.set_label(entry_id, text or None))

    def open_fork_picker(self) -> None:
        """``/fork``: every user message of the file, newest first."""
        session = self.session
        if session is None:
            return
        from pitui.core.session.fork import fork_points
        from pitui.ui.screens.fork import ForkPicker

        picker = ForkPicker(fork_points(session.store.table))

        def chosen(entry_id: str | None) -> None:
            if entry_id is not None:  # the keys typed since wait for the fork's question
                self.host.run_guarded(self.fork(entry_id, picker.key_hold))

        self.host.push_screen(picker, chosen)

    async def fork(self, entry_id: str, held: KeyHold | None = None) -> None:
        """A new session file up to ``entry_id``; a user message's text goes to the
        composer (editing and sending it continues the fork). ``held``: the keys typed
        since, let go once the Restore files question is open (or none is)."""
        session = self.session
        if session is None:
            let_go(held)
            return
        files = await self._files_for_move(entry_id, held=held)
        if files == CANCELLED or (files is not None and not await self._restore(files)):
            return
        text = await session.fork(entry_id)
        self.put_in_composer(text)
        self._say_restored()
        self._say_new_file("Forked to a new session", session)

    async def clone(self) -> None:
        """``/clone``: the current path in a new session file, with the files of its
        leaf when they differ from the working tree (and the user wants them)."""
        session = self.session
        leaf = session.store.get_leaf_id() if session is not None else None
        if session is None:
            return
        # The keys typed while the files are compared wait for the question (or go on
        # at once when there is none).
        held = self.host.hold_keys() if leaf is not None else None
        files = await self._files_for_move(leaf, held=held) if leaf is not None else None
        if files == CANCELLED or (files is not None and not await self._restore(files)):
            return
        await session.clone()
        self._say_restored()
        self._say_new_file("Cloned to a new session", session)

    def _say_new_file(self, what: str, session: AgentSession) -> None:
        """``Forked to a new session: ~/…/file.jsonl`` (the home as ``~``)."""
        from pitui.core.display import shorten_path  # lazy: not first-frame

        path = shorten_path(str(session.session_file))
        self.host.notice_after_events(f"{what}: {path}", lasting=True)

    # ------------------------------------------------------------------ rewind

    def open_rewind(self) -> None:
        """``/rewind``: a user message of this conversation, then conversation / files /
        both go back to just before it."""
        session = self.session
        if session is None:
            return
        from pitui.core.session.fork import fork_points
        from pitui.ui.screens.fork import ForkPicker

        table, leaf = session.store.table, session.store.get_leaf_id()
        on_path = set()
        if leaf is not None and leaf in table.index:
            on_path = {table.ids[p] for p in table.path_positions(table.index[leaf])}
        points = [(eid, text) for eid, text in fork_points(table) if eid in on_path]
        picker = ForkPicker(points, "Rewind to before a message", "choose")
        chosen = push_for_result(self.host, picker)
        self.host.run_worker(self._rewind_flow(picker, chosen))

    async def _rewind_flow(self, picker: ForkPicker, picked: asyncio.Future[str | None]) -> None:
        from pitui.ui.screens.files_restore import RewindChooser

        entry_id = await picked
        session = self.session
        try:  # the keys typed since the pick wait for the chooser
            if entry_id is None or session is None:
                return
            comparison = await self._compared(session.checkpoints.comparison_for(entry_id))
            files = comparison.count if comparison is not None else 0
            target = self._row_text(entry_id) or f"entry {entry_id}"
            chosen = push_for_result(self.host, RewindChooser(target, files))
        finally:
            let_go(picker.key_hold)
        choice = await chosen
        if choice is None:
            return
        wants_files = choice in ("files", "both") and comparison is not None
        if wants_files and comparison is not None and not await self._restore(comparison):
            return
        if choice in ("conversation", "both"):
            await self._navigate(entry_id, "none", None)
        self._say_restored()


def _release_lines(store: SessionStore) -> None:
    """In a thread, once a session's tree is shown (or another branch's entries were
    typed): the typed entries (the current path) give up the lines start-up has now read
    for the last time (their data is in the entries: a resumed 10,000-message session
    keeps ~10 MB less), and the memory they held goes with them."""
    if store.release_typed_lines():
        from pitui.core.heap import return_free_memory

        return_free_memory()
