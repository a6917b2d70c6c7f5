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
import time
from typing import TYPE_CHECKING

from pitui.errors import PituiError
from pitui.ui.host import push_for_result
from pitui.ui.view.events import AddNotice, ProgressEnded, ProgressStarted, ShowBranchSwitches
from pitui.ui.view.state import UserItem
from pitui.ui.widgets.composer import Composer

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.core.session.store import SessionStore
    from pitui.ui.host import UiHost
    from pitui.ui.screens.navigate import SummaryChoice
    from pitui.ui.view.tree_pane import TreePaneState  # loads with a session (models)

ALREADY_HERE = "Already at this point"
SUMMARY_OPERATION = "branch-summary"


class BranchesController:
    """The app's controller for the branch tree."""

    def __init__(self, host: UiHost) -> None:
        self.host = host
        self._store: SessionStore | None = None
        self._path_users: dict[str, tuple[str, int, int]] = {}
        """Conversation user item id → (entry id, i, n) on the current path."""
        self._prepared: tuple[SessionStore, TreePaneState] | None = None

    @property
    def session(self) -> AgentSession | None:
        live = self.host.live
        return live.facade if live is not None else None

    # ------------------------------------------------------------------ live rows

    def sync(self, *, rebuilt: bool = False) -> None:
        """Bring the pane up to date with the session file (a few rows, or a new tree
        after a switch of file). ``rebuilt``: the conversation was rebuilt, so its
        sibling-branch marks are drawn again."""
        rows = self.host.main.branches.rows
        session = self.session
        if session is None:
            if rows.state is not None:
                rows.show(None)
            return
        store = session.store
        if store is not self._store or rows.state is None:
            self._store = store
            state = self._tree_state(session)
            rows.show(state)
            # The first search keystroke would read every entry: read them now, aside.
            self.host.run_worker(state.view.warm_search, thread=True, group="tree-search")
        else:
            change = rows.state.sync(store.labels(), store.get_leaf_id())
            rows.apply(change)
            if not change.reset and not rebuilt:
                return  # entries added under the leaf leave the path's siblings as they were
        self._show_switches(rows.state)

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

    def _show_switches(self, state: TreePaneState | None) -> None:
        """Mark the conversation's user messages that have sibling branches. They are
        the path's user messages in context, so they pair up from the end."""
        session = self.session
        if state is None or session is None:
            return
        # A user message shown but not ended yet has no entry: leave it out.
        in_context = sum(1 for m in session.messages if getattr(m, "role", None) == "user")
        chat = self.host.chat
        users = [i.id for i in chat.items if isinstance(i, UserItem)][:in_context]
        path = state.view.branch_switches()
        self._path_users = dict(zip(reversed(users), reversed(path), strict=False))
        switches = {item: (i, n) for item, (_, i, n) in self._path_users.items() if n > 1}
        if switches or any(isinstance(i, UserItem) and i.branch for i in chat.items):
            self.host.run_worker(self.host.apply([ShowBranchSwitches(switches)]), group="branches")

    def switch_sibling(self, step: int, item_id: str | None = None) -> None:
        """Alt+← / Alt+→: the previous / next sibling branch of a user message (the given
        item, else the latest with siblings), at its newest entry, without a summary."""
        rows = self.host.main.branches.rows
        session = self.session
        if rows.state is None or session is None:
            return
        candidates = [(item, entry) for item, (entry, _, n) in self._path_users.items() if n > 1]
        chosen = next((e for i, e in candidates if i == item_id), None)
        if chosen is None and candidates:
            chosen = candidates[0][1]  # pairs were made from the end: the latest first
        target = rows.state.view.sibling_leaf(chosen, step) if chosen else None
        if target is None:
            self.host.run_worker(self.host.apply([AddNotice("No other branch here")]))
            return
        self.host.run_guarded(session.switch_branch(target))

    # ------------------------------------------------------------------ navigate

    def navigate(self, entry_id: str) -> None:
        """Enter on a row: pi's flow (already here / chooser / summary / new leaf)."""
        session = self.session
        if session is None:
            return
        if entry_id == session.store.get_leaf_id():
            self.host.run_worker(self.host.apply([AddNotice(ALREADY_HERE)]))
            return
        chooser: asyncio.Future[SummaryChoice | None] | None = None
        if not session.settings.branch_summary.skip_prompt:
            from pitui.ui.screens.navigate import SummaryChooser

            chooser = push_for_result(self.host, SummaryChooser(self._row_text(entry_id)))
        flow = self._navigate_flow(entry_id, chooser)
        self.host.run_worker(flow, group="navigate", exit_on_error=False)

    async def _navigate_flow(
        self, entry_id: str, chooser: asyncio.Future[SummaryChoice | None] | None
    ) -> None:
        """The summary choice (none when the settings skip the question), a custom
        prompt if asked for, then the navigation; Esc on either screen: back to the tree."""
        from pitui.ui.screens.navigate import CustomPromptScreen

        choice = await chooser if chooser is not None else "none"
        prompt: str | None = None
        if choice == "custom":
            prompt = await push_for_result(self.host, CustomPromptScreen())
            if prompt is None:
                choice = None
        if choice is None:
            self.reopen(entry_id)
            return
        # Esc must reach the app (it cancels the summary), not the tree.
        self.host.main.focus_now(self.host.main.query_one(Composer))
        await self._navigate(entry_id, choice, prompt)

    def _row_text(self, entry_id: str) -> str:
        state = self.host.main.branches.rows.state
        index = state.view.index_of(entry_id) if state is not None else None
        return state.view.row(index).text.plain if state is not None and index is not None else ""

    async def _navigate(self, entry_id: str, choice: SummaryChoice, prompt: str | None) -> None:
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
        self.put_in_composer(text)

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

    def put_in_composer(self, text: str | None) -> None:
        """A user message's text goes to the composer, only if it is empty (as pi)."""
        composer = self.host.main.query_one(Composer)
        if text and not composer.text:
            composer.put_text(text)
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

        def chosen(entry_id: str | None) -> None:
            if entry_id is not None:
                self.host.run_guarded(self.fork(entry_id))

        self.host.push_screen(ForkPicker(fork_points(session.store.table)), chosen)

    async def fork(self, entry_id: str) -> None:
        """A new session file up to ``entry_id``; a user message's text goes to the
        composer (editing and sending it continues the fork)."""
        session = self.session
        if session is None:
            return
        text = await session.fork(entry_id)
        self.put_in_composer(text)
        self.host.notice_after_events(f"Forked to a new session: {session.session_file}")
