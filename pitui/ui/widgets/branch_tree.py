"""The Branches pane: the session tree as pi's ``/tree`` draws it, always live.

:class:`BranchTree` draws rows with Textual's line API: only the lines in view are
rendered, each once until its row changes, so a 10,000-entry session costs what the
screen shows. It turns keys into :class:`~pitui.ui.view.tree_pane.TreePaneState` calls
and posts intents (navigate, label, fork, leave); the app carries them out.
:class:`BranchesPane` is the bordered box with the search / footer line under the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

if TYPE_CHECKING:
    # Types only: the tree model (and pydantic behind the session table) loads with the
    # session, after the first frame.
    from pitui.core.session.tree_view import FilterMode, TreeChange, TreeRow
    from pitui.ui.view.tree_pane import TreePaneState

HEAD_STYLES: dict[str, str] = {
    "user": "$pi-accent",
    "assistant": "$pi-success",
    "tool": "$pi-muted",
    "bash": "$pi-dim",
    "custom": "$pi-customMessageLabel",
    "compaction": "$pi-borderAccent",
    "summary": "$pi-warning",
    "setting": "$pi-dim",
    "system": "$pi-dim",
}
"""pi's colour for the first part of each kind of row."""

LOADING = "loading the session…"
_ROW_KEYS = frozenset("LFD")
"""Shift+L label, Shift+F fork, Shift+D files: each opens a screen for the row."""
PANE_HINTS = "↵ go  ⇧L label  ⇧F fork  ⇧D files  ←→ fold  ^D/T/U/L/A filter  esc back"
"""The keys of the pane, shown in the status bar while it has focus."""


def row_content(row: TreeRow, selected: bool, width: int = 0) -> Content:
    """One row with pi's colours (the selected row bold, behind a ``›`` cursor). With a
    ``width``, a long text is cut so that the leaf's ``←`` stays in view."""
    text = row.text
    lead: list[tuple[str, str]] = [
        ("› " if selected else "  ", "$pi-accent"),
        (row.prefix, "$pi-dim"),
        (row.fold_marker, "$pi-accent"),
        ("• " if row.on_path else "", "$pi-accent"),
        ("⚠ broken link: " if row.broken else "", "$pi-error"),
        (f"[{row.label}] " if row.label else "", "$pi-warning"),
        (f"±{row.files} " if row.files else "", "$pi-accent"),  # this run changed files
        (text.head, HEAD_STYLES[text.kind]),
    ]
    body = text.body
    arrow = " ←" if row.is_leaf else ""
    if width and arrow:
        room = width - sum(len(part) for part, _ in lead) - len(arrow)
        if len(body) > room:
            body = body[: max(0, room - 1)] + "…"
    content = Content.assemble(
        *lead, (body, "$pi-muted" if text.muted else "$pi-text"), (arrow, "$pi-accent")
    )
    return content.stylize("bold on $pi-selectedBg") if selected else content


class BranchTree(ScrollView, can_focus=True):
    """The rows of the tree; the selected one follows the keys."""

    DEFAULT_CSS = "BranchTree { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "up", show=False, id="tree.up"),
        Binding("down", "move(1)", "down", show=False, id="tree.down"),
        Binding("pageup", "page(-1)", "page up", show=False, id="tree.pageUp"),
        Binding("pagedown", "page(1)", "page down", show=False, id="tree.pageDown"),
        Binding("home", "home", "first", show=False, id="tree.home"),
        Binding("end", "end", "last", show=False, id="tree.end"),
        Binding("left,ctrl+left,alt+left", "fold", "fold", show=False, id="tree.foldOrUp"),
        Binding("right,ctrl+right,alt+right", "unfold", "unfold", show=False, id="tree.unfold"),
        Binding("enter", "navigate", "navigate", show=False, id="tree.navigate"),
        Binding("ctrl+d", "filter('default')", "default", show=False, id="tree.filterDefault"),
        Binding("ctrl+t", "toggle_filter('no-tools')", "no tools", show=False, id="tree.noTools"),
        Binding("ctrl+u", "toggle_filter('user-only')", "user", show=False, id="tree.userOnly"),
        Binding(
            "ctrl+l", "toggle_filter('labeled-only')", "labeled", show=False, id="tree.labeled"
        ),
        Binding("ctrl+a", "toggle_filter('all')", "all", show=False, id="tree.all"),
        Binding("ctrl+o", "cycle_filter(1)", "cycle", show=False, id="tree.cycleFilter"),
        Binding("ctrl+shift+o", "cycle_filter(-1)", "back", show=False, id="tree.cycleBack"),
        Binding("backspace", "backspace", "delete", show=False, id="tree.backspace"),
        Binding("escape", "escape", "back", show=False, id="tree.escape"),
        Binding("ctrl+c", "leave", "back", show=False, id="tree.cancel"),
    ]

    class Navigate(Message):
        """Enter on a row: move the session's leaf there."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    class EditLabel(Message):
        """Shift+L: edit the label of a row."""

        def __init__(self, entry_id: str, label: str | None) -> None:
            super().__init__()
            self.entry_id = entry_id
            self.label = label

    class Fork(Message):
        """Shift+F: fork a new session at a row."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    class ShowFiles(Message):
        """Shift+D: how the files at a row differ from the working tree."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    class Leave(Message):
        """Esc without search text: back to the composer."""

    class Changed(Message):
        """The selection, filter or search changed (the footer follows)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: TreePaneState | None = None
        self._strips: LRUCache[tuple[TreeRow | str, bool, int], Strip] = LRUCache(1024)
        """Each drawn line by what it shows (the row, selected, width): a row that did not
        change is not drawn again, however the tree changed around it (a sibling switch
        keeps the rows above the branch point)."""
        self.rendered_rows = 0
        """How many rows were rendered anew (not from the cache): for benchmarks."""
        self.typed: Callable[[str], None] | None = None
        self._searching = False
        """The last key typed into the search: a capital then is a letter (``README``),
        not Shift+L/F/D, until another key (a move) comes."""

    # ------------------------------------------------------------------ state

    def show(self, state: TreePaneState | None) -> None:
        """Draw a (new) tree."""
        self.state = state
        self._rows_changed()
        self.call_after_refresh(self._scroll_to_selected)  # once the new size is laid out

    def apply(self, change: TreeChange) -> None:
        """Redraw what ``change`` touched (rows below an insertion move down one line)."""
        if change.empty:
            return
        state = self.state
        if state is None:
            return
        self._resize()
        self._scroll_to_selected()
        first = min([*change.inserted, *change.updated, *change.removed], default=0)
        top = int(self.scroll_offset.y)
        if change.reset or first < top + self.size.height:
            self.refresh()  # only the lines in view are drawn again, from the cache
        self.post_message(self.Changed())

    @property
    def _width(self) -> int:
        """Columns for a row (the vertical scrollbar takes one when rows overflow)."""
        return self.scrollable_content_region.width

    def _resize(self) -> None:
        # Rows never scroll sideways (each is cut to the width), so the virtual width is
        # 0: a resize alone then changes nothing here and costs no second layout pass.
        rows = len(self.state) if self.state is not None else 0
        if self.virtual_size.height != rows or self.virtual_size.width:
            self.virtual_size = Size(0, rows)

    def _scroll_to_selected(self) -> None:
        if self.state is None or not len(self.state):
            return
        y = self.state.selected
        top = int(self.scroll_offset.y)
        height = max(1, self.size.height)
        if y < top:
            self.scroll_to(y=y, animate=False, immediate=True)
        elif y >= top + height:
            self.scroll_to(y=y - height + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()
        self._resize()
        self.call_after_refresh(self._scroll_to_selected)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # a theme change recolours every row

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self._width
        state = self.state
        index = int(self.scroll_offset.y) + y
        if state is None or index >= len(state):
            return self._blank(width)
        row = state.view.row(index)
        selected = index == state.selected
        key = (row, selected, width)
        strip = self._strips.get(key)
        if strip is None:
            self.rendered_rows += 1
            content = row_content(row, selected, width)
            strips = Content.to_strips(self, content, width, 1, self.visual_style, pad=True)
            strip = strips[0].crop(0, width) if strips else self._blank(width)
            self._strips[key] = strip
        return strip

    def _blank(self, width: int) -> Strip:
        """An empty line, made once per width and style: ``rich_style`` walks the DOM, and an
        empty or short tree draws every line below its rows with it."""
        key = ("", False, width)  # no entry has an empty id
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = Strip.blank(width, self.rich_style)
        return strip

    def _redraw_selection(self, before: int) -> None:
        state = self.state
        if state is None:
            return
        self._scroll_to_selected()
        top = int(self.scroll_offset.y)
        for index in (before, state.selected):
            self.refresh_line(index - top)
        self.post_message(self.Changed())

    def _rows_changed(self) -> None:
        """After a filter, search or fold change: every row may have moved."""
        self._strips.clear()
        self._resize()
        self._scroll_to_selected()
        self.refresh()
        self.post_message(self.Changed())

    # ------------------------------------------------------------------ keys

    def _select(self, move: Callable[[TreePaneState], None]) -> None:
        if self.state is not None:
            before = self.state.selected
            move(self.state)
            self._redraw_selection(before)

    def action_move(self, step: int) -> None:
        self._select(lambda s: s.move(step))

    def action_page(self, step: int) -> None:
        self._select(lambda s: s.page(step, self.size.height))

    def action_home(self) -> None:
        self._select(lambda s: s.home())

    def action_end(self) -> None:
        self._select(lambda s: s.end())

    def _restructure(self, change: Callable[[TreePaneState], None]) -> None:
        if self.state is not None:
            change(self.state)
            self._rows_changed()

    def action_fold(self) -> None:
        self._restructure(lambda s: s.fold_or_up())

    def action_unfold(self) -> None:
        self._restructure(lambda s: s.unfold_or_down())

    def action_filter(self, mode: FilterMode) -> None:
        self._restructure(lambda s: s.set_filter(mode))

    def action_toggle_filter(self, mode: FilterMode) -> None:
        self._restructure(lambda s: s.toggle_filter(mode))

    def action_cycle_filter(self, step: int) -> None:
        self._restructure(lambda s: s.cycle_filter(step))

    def action_backspace(self) -> None:
        self._restructure(lambda s: s.backspace())

    def action_escape(self) -> None:
        if self.state is not None and self.state.clear_query():
            self._rows_changed()
        else:
            self.post_message(self.Leave())

    def action_leave(self) -> None:
        """Ctrl+C: back to the composer (as pi's lists cancel)."""
        self.post_message(self.Leave())

    def action_navigate(self) -> None:
        row = self.state.selected_row if self.state is not None else None
        if row is not None:
            self.post_message(self.Navigate(row.entry_id))

    def opens_screen(self, event: events.Key) -> bool:
        """Enter and Shift+L / Shift+F / Shift+D on a row post a message that opens a
        screen (see :mod:`~pitui.ui.widgets.key_gate`)."""
        if self.state is None or self.state.selected_row is None:
            return False
        if event.key == "enter":
            return True
        searching = self._searching and bool(self.state.query)
        return event.character in _ROW_KEYS and not searching

    def on_key(self, event: events.Key) -> None:
        """Shift+L / Shift+F / Shift+D act on the row; other printable keys search (as in
        pi), capitals too while a search is being typed."""
        row = self.state.selected_row if self.state is not None else None
        character = event.character
        if not event.is_printable or character is None or self.state is None:
            self._searching = event.key == "backspace" and self._searching
            return
        event.stop()
        event.prevent_default()
        if self._searching and self.state.query:
            row = None  # typing on: the capital is part of the word searched
        self._searching = False
        if character == "L" and row is not None:
            self.post_message(self.EditLabel(row.entry_id, row.label))
        elif character == "F" and row is not None:
            self.post_message(self.Fork(row.entry_id))
        elif character == "D" and row is not None:
            self.post_message(self.ShowFiles(row.entry_id))
        else:
            self._restructure(lambda s: s.type(character))
            self._searching = True

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text searches too (one line)."""
        text = " ".join(event.text.split())
        if text and self.state is not None:
            event.stop()
            self._restructure(lambda s: s.type(text))


NO_ENTRIES = "No entries found  "


class BranchesPane(Vertical):
    """The bordered Branches box: the rows, then the search and footer line."""

    DEFAULT_CSS = """
    BranchesPane > #branches-footer { height: 1; color: $pi-muted; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None, new_session: bool = False) -> None:
        super().__init__(id=id)
        self._new_session = new_session

    def compose(self) -> ComposeResult:
        yield BranchTree(id="branch-tree")
        yield Static(self._first_footer(), id="branches-footer")

    def _first_footer(self) -> str:
        """A new session's tree is empty: say so from the first frame, in the words the
        loaded tree will use, rather than change the line once the session attaches."""
        if not self._new_session:
            return ""
        from pitui.core.session.tree_filters import position_footer  # standard library only

        return NO_ENTRIES + position_footer(0, 0, "default")

    def on_mount(self) -> None:
        self.border_title = "Branches"

    def show_loading(self) -> None:
        """The session is still loading: say so until its tree is shown."""
        if self.rows.state is None:
            footer = self.query_one("#branches-footer", Static)
            footer.update(Content.styled(LOADING, "$pi-dim"))

    @property
    def rows(self) -> BranchTree:
        """The rows widget."""
        return self.query_one(BranchTree)

    def on_branch_tree_changed(self, message: BranchTree.Changed) -> None:
        message.stop()
        self.show_footer()

    def show_footer(self) -> None:
        state = self.rows.state
        footer = self.query_one("#branches-footer", Static)
        if state is None:
            footer.update(Content.styled("no session", "$pi-dim"))
            return
        search = Content.styled(f"search: {state.query}  ", "$pi-accent") if state.query else ""
        empty = NO_ENTRIES if not len(state) else ""
        footer.update(Content.assemble(search, empty, state.footer()))
