"""The main screen: conversation, tool cards, branch tree, queue, composer, status bar.

Its stylesheet ``main.tcss`` sits beside this module (loaded by the app, since the
default screen is created before screen stylesheets are read).

Terminals of 120 columns or more show Conversation, Tools and Branches side by side;
from 100 columns the tool pane sits beside the conversation and Ctrl+B swaps Branches in
for it; narrower ones swap the tool pane (F2) or the branch tree (Ctrl+B) in for the
conversation. The conversation keeps 60 columns beside the others (main.tcss).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from pitui.ui.live.gc_pacing import RunCollection
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.branch_tree import PANE_HINTS, BranchesPane, BranchTree
from pitui.ui.widgets.composer_parts import (
    STAND_IN_ID,
    ActivityLine,
    ComposerStandIn,
    QueueView,
    thinking_classes,
)
from pitui.ui.widgets.conversation import ConversationView, ItemPane
from pitui.ui.widgets.status_bar import StatusBar
from pitui.ui.widgets.tool_pane import ToolPane

if TYPE_CHECKING:
    from textual.timer import Timer

    from pitui.core.usage import UsageTotals
    from pitui.ui.view.state import ChatItem
    from pitui.ui.widgets.base import ToggleRequested  # item widgets: not first-frame
    from pitui.ui.widgets.composer import Composer  # mounted after the first frame
    from pitui.ui.widgets.search_bar import SearchBar
    from pitui.ui.widgets.tool_card import ToolCard

NARROW_BELOW = 100
THREE_PANES_FROM = 120
HINTS = "^O expand  ^T thinking  ^B branches  F2 tools"
SELECTION_HINTS = "↑↓ select  ↵ fold  c/C copy  t tool  esc back"
"""While the conversation selection (Tab, Ctrl+Up) has the keys."""
FIND_HINTS = "↵/↓ next  ⇧↵/↑ previous  esc close"
"""While the find bar (Ctrl+F) has the keys."""
NEW_OUTPUT = "new output ↓"
"""Shown on the conversation's bottom border while output arrived below the viewport."""


class MainScreen(Screen[None]):
    """Lays out the panes and routes state changes to the widgets that show them.

    Its key bindings come from the action table (the app's ``PituiMainScreen``)."""

    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-narrow"),
        (NARROW_BELOW, "-wide"),
        (THREE_PANES_FROM, "-widest"),
    ]
    AUTO_FOCUS = f"#composer, #{STAND_IN_ID}"
    """Focus the composer (or its first-frame stand-in) straight away: Textual's default (the
    first focusable widget, the conversation pane) would move focus, and restyle both
    widgets, twice before frame 1."""

    def __init__(
        self,
        info: SessionInfo | None = None,
        state: ChatState | None = None,
        *,
        new_session: bool = False,
        listing: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.run_collection = RunCollection()
        """The cyclic collector, paced while the agent runs (see its module)."""
        self.listing: list[str] = listing or []
        """The start-up listing's lines on screen (none: not shown)."""
        self._listing_dismissed = False
        """The first prompt took the listing away: it is not shown again."""
        self._resized_to: Size | None = None
        """The size of the last Resize (the same size again needs no new layout)."""
        self._new_session = new_session
        """The session being started is a new one (its tree is empty from the first frame)."""
        self._initial = (info, state or ChatState()) if info is not None else None
        self._status_bar: StatusBar | None = None
        self._composer_box: Widget | None = None
        """The composer, or its first-frame stand-in until :meth:`mount_composer`: kept, as
        the status bar is, because the status is shown several times a rebuild and a query
        walks the whole screen (~1 ms each on a long session)."""
        self._status: tuple[SessionInfo, UsageTotals] | None = None
        """What the status bar shows (the usage, not the chat state it came from: a kept
        state would keep its items' index, ~0.3 MB on a 10,000-message session)."""
        self._flash: str | None = None
        """A short-lived hint shown instead of the keys (e.g. "press again to quit")."""
        self._flash_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        # The breakpoint class now, not at the first Resize: it would restyle every widget
        # again just before the first frame (~10 ms).
        width = self.app.size.width
        self.set_class(width < NARROW_BELOW, "-narrow", update=False)
        self.set_class(NARROW_BELOW <= width < THREE_PANES_FROM, "-wide", update=False)
        self.set_class(width >= THREE_PANES_FROM, "-widest", update=False)
        with Horizontal(id="panes"):
            with Vertical(id="conversation-box"):
                if self.listing:  # from the start-up snapshot: in the first frame
                    from pitui.ui.widgets.startup_listing import StartupListing

                    yield StartupListing(self.listing, id="startup-listing")
                yield ConversationView(id="conversation")
            yield ToolPane(id="tools")
            yield BranchesPane(id="branches", new_session=self._new_session)
        yield ActivityLine(id="activity")
        yield QueueView(id="queue")
        # The SuggestionList goes here, mounted after the first frame (add_suggestion_list),
        # and the real composer in the stand-in's place (mount_composer).
        self._composer_box = ComposerStandIn(id=STAND_IN_ID)
        self._status_bar = StatusBar(id="status")
        yield self._composer_box
        yield self._status_bar

    class Ready(Message):
        """The screen's widgets exist; the app may start feeding it."""

    async def on_mount(self) -> None:
        self.post_message(self.Ready())
        self.query_one("#conversation", ConversationView).border_title = "Conversation"
        self.query_one("#tools", ToolPane).border_title = "Tools"
        self.query_one("#queue", QueueView).show((), ())
        self.query_one("#activity", ActivityLine).show(None)
        if self._initial is not None:  # drawn in the first frame, not one refresh later
            self.show_status(*self._initial)
            state = self._initial[1]
            if state.items:  # the early notices (the app's first state)
                await self.show_state(state, state.items)

    @property
    def composer(self) -> Composer:
        """The composer (mounted right after the first frame: see :meth:`mount_composer`)."""
        from pitui.ui.widgets.composer import Composer

        if isinstance(self._composer_box, Composer):
            return self._composer_box
        return self.query_one("#composer", Composer)  # (raises: not mounted yet)

    async def mount_composer(self) -> None:
        """Put the real composer where the first frame drew its stand-in: same place, same
        classes (the thinking-level border), and the focus if the stand-in had it. One
        layout, in a batch: the screen looks the same before and after. The app holds the
        keys typed until now and sends them on to it once this is done."""
        from pitui.ui.widgets.composer import Composer

        found = self.query(f"#{STAND_IN_ID}")
        if not found:
            return
        stand_in = found.first()
        composer = Composer(id="composer", classes=" ".join(stand_in.classes))
        with self.app.batch_update():
            await self.mount(composer, before=stand_in)
            self._composer_box = composer
            if self.focused is stand_in:
                self.set_focus(composer)
            await stand_in.remove()

    async def add_suggestion_list(self) -> None:
        """Mount the composer's autocomplete list above it. Called once the first frame is
        drawn: the list is hidden until ``/`` is typed, and its widget class (an OptionList
        with its own stylesheet) is not needed to draw the screen."""
        from pitui.ui.widgets.suggestions import SuggestionList

        composer = self.composer
        await self.mount(SuggestionList(id="suggestions"), before=composer)
        if composer.text:  # typed while the list did not exist yet (a fast start, a fast typist)
            composer.refresh_suggestions()

    async def show_startup_listing(self, lines: list[str]) -> None:
        """What is loaded, above the conversation (replacing an earlier listing; nothing
        changes when the same lines are already shown, nor once the first prompt took the
        listing away: one typed before the session was up comes before the listing)."""
        from pitui.ui.widgets.startup_listing import StartupListing

        if lines == self.listing or self._listing_dismissed:
            return
        await self._remove_listing()
        self.listing = lines
        if lines:
            box = self.query_one("#conversation-box", Vertical)
            await box.mount(StartupListing(lines, id="startup-listing"), before=self.conversation)

    async def hide_startup_listing(self) -> None:
        """Remove the start-up listing for good (the first prompt was sent)."""
        self._listing_dismissed = True
        await self._remove_listing()

    async def _remove_listing(self) -> None:
        self.listing = []
        found = self.query("#startup-listing")
        if found:
            await found.remove()

    @property
    def conversation(self) -> ConversationView:
        """The conversation pane."""
        return self.query_one("#conversation", ConversationView)

    @property
    def tools(self) -> ToolPane:
        """The tool-card pane."""
        return self.query_one("#tools", ToolPane)

    async def show_state(
        self, state: ChatState, changed: Sequence[ChatItem], previous: ChatState | None = None
    ) -> None:
        """Update only the widgets of the ``changed`` items (and the lines whose state
        changed)."""
        self.run_collection.follow(state.busy)
        if changed:
            await self.conversation.sync(state, changed)
            await self.tools.sync(state, changed)
        queue = (state.steering, state.follow_up)
        if previous is None or queue != (previous.steering, previous.follow_up):
            self.query_one("#queue", QueueView).show(*queue)
        if previous is None or state.activity != previous.activity:
            self.query_one("#activity", ActivityLine).show(state.activity)

    def on_unmount(self) -> None:
        self.run_collection.follow(False)  # an app closed mid-run leaves nothing frozen

    @property
    def branches(self) -> BranchesPane:
        """The branch-tree pane."""
        return self.query_one("#branches", BranchesPane)

    def show_status(self, info: SessionInfo, state: ChatState) -> None:
        """Redraw the status bar (the keys shown follow the focused pane)."""
        self._show_status(info, state.usage)

    def _show_status(self, info: SessionInfo, usage: UsageTotals) -> None:
        self._status = (info, usage)
        hints = self._flash or self._focus_hints()
        bar, composer = self._status_bar, self._composer_box
        if bar is None or composer is None:  # not composed yet
            return
        bar.show(info, usage, hints)
        level = (info.thinking_level or "off") if info.model_id else None
        composer.update_classes(thinking_classes(level))

    def _focus_hints(self) -> str:
        """The keys of the focused pane (the Branches pane, the conversation selection,
        the find bar), else the app's."""
        focused = self.focused
        if isinstance(focused, BranchTree):
            return PANE_HINTS
        if isinstance(focused, ConversationView):
            return SELECTION_HINTS
        if focused is not None and focused.id == "search-input":
            return FIND_HINTS
        return HINTS

    def flash_hint(self, text: str, seconds: float) -> None:
        """Show ``text`` on the status bar's key line for ``seconds`` (it covers nothing,
        unlike a toast over the composer)."""
        self._flash = text
        if self._flash_timer is not None:
            self._flash_timer.stop()
        self._flash_timer = self.set_timer(seconds, self._end_flash)
        self._refresh_hints()

    def _end_flash(self) -> None:
        self._flash = None
        self._flash_timer = None
        self._refresh_hints()

    def on_item_pane_unseen(self, message: ItemPane.Unseen) -> None:
        # On the pane's bottom border: the pill takes no line from the conversation, which
        # stays level with the panes beside it.
        if message.pane.id == "conversation":
            message.pane.border_subtitle = NEW_OUTPUT if message.unseen else ""

    def on_tool_card_selected(self, message: ToolCard.Selected) -> None:
        """A picked card: highlight the assistant message that made the call."""
        self.tools.select(message.card.item_id)
        self.conversation.highlight_message(message.card.item.message_id)

    def on_toggle_requested(self, message: ToggleRequested) -> None:
        """A tool reference clicked in the conversation also picks its card (not stopped:
        the app folds the card)."""
        if message.item_id.startswith("tool:"):
            card = self.tools.select(message.item_id)
            if card is not None:
                self.conversation.highlight_message(card.item.message_id)

    def action_toggle_tool_pane(self) -> None:
        """Show or hide the tool pane (narrow: swap it in for the conversation)."""
        self.toggle_class("-show-tools")

    def action_toggle_branches(self) -> None:
        """Ctrl+B: show and focus the branch tree; again (from the tree): back to the
        composer, hiding the tree where it is not always shown."""
        tree = self.branches.rows
        if tree.has_focus:
            self.leave_branches()
        else:
            self.focus_branches()

    def focus_branches(self) -> None:
        """Show the branch tree (where it is toggled) and focus it."""
        if self.has_class("-narrow"):  # swapped in for the tool pane; wide, F2's choice stays
            self.remove_class("-show-tools")
        self.add_class("-show-branches")
        self.focus_now(self.branches.rows)

    def leave_branches(self) -> None:
        """Back to the composer; the tree hides again unless three panes fit."""
        self.remove_class("-show-branches")
        self.focus_now(self.composer)

    def focus_now(self, widget: Widget) -> None:
        """Focus ``widget`` before the next key is handled. ``Widget.focus`` defers the
        change, so keys typed in the same burst would still reach the old widget."""
        self.set_focus(widget)

    def on_branch_tree_leave(self, message: BranchTree.Leave) -> None:
        message.stop()
        self.leave_branches()

    def _screen_resized(self, size: Size) -> None:
        # Textual lays the whole screen out again for every Resize, even one of the size it
        # already has: the terminal reports its size up to three times at start, and each
        # pass before the first frame costs ~10 ms for nothing.
        if size != self._resized_to:
            self._resized_to = size
            super()._screen_resized(size)

    def on_descendant_focus(self, event: object) -> None:
        if self._status is not None:
            self._show_status(*self._status)

    def on_descendant_blur(self, event: object) -> None:
        self.call_after_refresh(self._refresh_hints)

    def _refresh_hints(self) -> None:
        if self._status is not None:
            self._show_status(*self._status)

    # ------------------------------------------------------------------ keyboard

    def _show_conversation(self) -> None:
        """Narrow: swap the conversation back in for the tools or the tree."""
        if self.has_class("-narrow"):
            self.remove_class("-show-tools", "-show-branches")

    def action_focus_conversation(self) -> None:
        """Select items in the conversation (its key, or Tab from the composer)."""
        self._show_conversation()
        self.focus_now(self.conversation)

    def on_conversation_view_leave(self, message: ConversationView.Leave) -> None:
        if self.focused is self.conversation:  # not if a key typed meanwhile moved it
            self.focus_now(self.composer)

    async def on_conversation_view_tool_jump(self, message: ConversationView.ToolJump) -> None:
        """``t``: the tool card of the selected item, shown and picked in the tool pane."""
        narrow = self.has_class("-narrow")
        self.set_class(narrow, "-show-tools")  # wide, the class hides the pane
        if narrow:
            self.remove_class("-show-branches")
        card = await self.tools.show_card(message.item_id)
        if card is not None:
            self.conversation.highlight_message(card.item.message_id)
            if self.focused is self.conversation:  # not if a key typed meanwhile moved it
                self.focus_now(self.tools)

    def on_composer_submitted(self, message: Composer.Submitted) -> None:
        """A message was sent: a conversation scrolled away to an old item comes back."""
        if self.conversation.detached:
            self.run_worker(self.conversation.follow_bottom(), exit_on_error=False)

    # ------------------------------------------------------------------ search

    async def search_bar(self) -> SearchBar:
        """The find bar (mounted the first time it is opened: not first-frame)."""
        from pitui.ui.widgets.search_bar import SearchBar

        found = self.query(SearchBar)
        if found:
            return found.first()
        bar = SearchBar(self.conversation, id="search")
        await self.query_one("#conversation-box").mount(bar)
        return bar

    async def action_open_search(self) -> None:
        """Ctrl+F: find in the conversation (narrow: swapped back in), upwards from the
        selected item when the conversation has the focus, else from the end."""
        from_item = self.conversation.selected if self.focused is self.conversation else None
        self._show_conversation()
        (await self.search_bar()).open(from_item)

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        """Back to the composer, unless a key typed meanwhile already moved the focus."""
        focused = self.focused
        if focused is None or message.bar in focused.ancestors_with_self:
            self.focus_now(self.composer)
