"""The resume picker (``/resume``, ``pitui -r``, the palette): pi's session selector.

Sessions of this folder, Tab for all folders; Ctrl+S cycles threaded → recent →
relevance, Ctrl+N keeps only named sessions; the search box takes pi's syntax
(``re:<regex>``, ``"a phrase"``, fuzzy words; all must match) over id, name, message text
and cwd. Ctrl+R renames, Ctrl+D deletes (after a confirmation, into the trash folder),
Enter opens. Rows arrive as files are read (a count shows while loading); message text
is read once a query needs it. The screen dismisses with the chosen file or None:
switching is the caller's job. Everything it knows about sessions comes from
:mod:`pitui.core.session.listing_view` and :mod:`~pitui.core.session.listing_ops`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar, Literal

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from pitui.core.session.listing import SessionInfo, read_session_info
from pitui.core.session.listing_ops import (
    MessageTexts,
    PickerScopes,
    list_progressively,
    trash_session,
)
from pitui.core.session.listing_search import parse_search_query
from pitui.core.session.listing_view import (
    SORT_LABELS,
    NameFilter,
    SortMode,
    next_sort,
    picker_rows,
)
from pitui.errors import PituiError
from pitui.ui.view.format import shorten_path
from pitui.ui.widgets.key_gate import (
    FLOW_HOLD_AT_MOST_S,
    EnterHoldsKeys,
    KeyHold,
    hold_app_keys,
    let_go,
)
from pitui.ui.widgets.session_rows import SessionRows

Scope = Literal["current", "all"]
Renamer = Callable[[Path, str], Awaitable[None]]
"""Renames a session file (the current one goes through the open session)."""
REFRESH_S = 0.1
"""While loading, rows are re-sorted and redrawn at most this often."""
HINTS = (
    'Tab scope · re:<pattern> regex · "phrase" exact',
    "^S sort · ^N named · ^R rename · ^D delete · Enter open · Esc cancel",
)
CONFIRM_DELETE = "Delete session? [Enter] confirm · [Esc] cancel"


class _ScopeRows:
    """The sessions of one scope and how far their listing got."""

    def __init__(self) -> None:
        self.sessions: list[SessionInfo] = []
        self.done = 0
        self.total: int | None = None
        self.started = False

    @property
    def loading(self) -> bool:
        return self.total is None or self.done < self.total


class ResumeScreen(EnterHoldsKeys, ModalScreen[Path | None]):
    """Pick a session; dismisses with its file, or None. Enter in the rename field holds
    the keys typed after it (:class:`EnterHoldsKeys`) until the name is saved and the
    search field has the focus again: ``name⏎more`` names the session "name"."""

    CSS_PATH = "resume.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "cancel", show=False, priority=True, id="resume.cancel"),
        Binding("enter", "enter", "open", show=False, priority=True, id="resume.open"),
        Binding("up", "move(-1)", show=False, priority=True, id="resume.up"),
        Binding("down", "move(1)", show=False, priority=True, id="resume.down"),
        Binding("pageup", "page(-1)", show=False, priority=True, id="resume.pageup"),
        Binding("pagedown", "page(1)", show=False, priority=True, id="resume.pagedown"),
        Binding("tab", "scope", show=False, priority=True, id="resume.scope"),
        Binding("ctrl+s", "sort", show=False, priority=True, id="resume.sort"),
        Binding("ctrl+n", "named", show=False, priority=True, id="resume.named"),
        Binding("ctrl+r", "rename", show=False, priority=True, id="resume.rename"),
        Binding("ctrl+d", "delete", show=False, priority=True, id="resume.delete"),
    ]

    def __init__(
        self,
        scopes: PickerScopes,
        *,
        current_path: str | None = None,
        rename: Renamer | None = None,
    ) -> None:
        super().__init__()
        from pitui.ui.widgets.item_styles import add_stylesheet

        add_stylesheet(self.app, Path(__file__).with_name(self.CSS_PATH))
        self.scopes = scopes
        self.current_path = current_path
        self.renamer = rename
        self.scope: Scope = "current"
        self._has_picked = False
        self.key_hold: KeyHold | None = None
        """The keys typed since a session was picked, held until the switch lets them go
        (the Restore files question for its files is open, or none is asked)."""
        self.sort: SortMode = "threaded"
        self.name_filter: NameFilter = "all"
        self.search = parse_search_query("")
        self.texts = MessageTexts()
        self.lists: dict[Scope, _ScopeRows] = {"current": _ScopeRows(), "all": _ScopeRows()}
        self.mode: Literal["list", "rename", "delete"] = "list"
        self.status: tuple[str, str] | None = None
        self._last_refresh = 0.0
        self._searching: tuple[int, int] | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Vertical(id="resume"):
            yield Static(id="resume-header")
            yield Input(placeholder="Search sessions", id="resume-search")
            yield Static(id="resume-hints")
            yield Input(placeholder="New name", id="resume-rename")
            yield SessionRows(id="resume-rows")
            yield Static(id="resume-footer")

    def on_mount(self) -> None:
        rows = self.query_one(SessionRows)
        rows.current_path = self.current_path
        self.query_one("#resume-rename").display = False
        self.query_one("#resume-search", Input).focus()
        self._redraw()
        self._load("current")

    @property
    def rows(self) -> SessionRows:
        """The list widget."""
        return self.query_one(SessionRows)

    # ------------------------------------------------------------------ loading

    def _load(self, scope: Scope) -> None:
        state = self.lists[scope]
        if state.started:
            return
        state.started = True
        self._run_load(scope)

    @work(group="resume-load", exit_on_error=False)
    async def _run_load(self, scope: Scope) -> None:
        state = self.lists[scope]
        directories = self.scopes.current if scope == "current" else self.scopes.everywhere
        drawn = False
        async for step in list_progressively(directories):
            state.sessions.extend(step.rows)
            state.done, state.total = step.done, step.total
            now = time.monotonic()
            drawn = False
            if scope == self.scope and (not state.loading or now - self._last_refresh > REFRESH_S):
                self._last_refresh = now
                self._redraw()
                drawn = True
        state.total = state.total or 0
        if scope == self.scope:
            if not drawn:
                self._redraw()
            self._load_texts()

    @work(group="resume-texts", exclusive=True, exit_on_error=False)
    async def _load_texts(self) -> None:
        """Read the message text a query needs, refiltering as it comes in."""
        if self.search.empty:
            return
        missing = self.texts.missing(self.lists[self.scope].sessions)
        if not missing:
            return
        self._searching = (0, len(missing))
        async for done in self.texts.load(missing):
            self._searching = (done, len(missing))
            self._redraw()
        self._searching = None
        self._redraw()

    # ------------------------------------------------------------------ drawing

    def _redraw(self, *, keep_selection: bool = True) -> None:
        state = self.lists[self.scope]
        rows = picker_rows(state.sessions, self.search, self.sort, self.name_filter, self.texts.get)
        widget = self.rows
        keep = widget.selected_row.info.path if widget.selected_row and keep_selection else None
        widget.empty_text = self._empty_text(state)
        widget.show(rows, show_cwd=self.scope == "all", keep=keep)
        self._draw_header(state)
        self._draw_hints()
        self._draw_footer(len(rows))

    def _empty_text(self, state: _ScopeRows) -> str:
        if state.loading:
            return "Loading sessions…"
        if not self.search.empty:
            return "No sessions match the search"
        if self.name_filter == "named":
            if self.scope == "all":
                return "No named sessions found. Press Ctrl+N to show all."
            return (
                "No named sessions in current folder. Press Ctrl+N to show all, or Tab to view all."
            )
        if self.scope == "all":
            return "No sessions found"
        return "No sessions in current folder. Press Tab to view all."

    def _draw_header(self, state: _ScopeRows) -> None:
        """Title left; scope (or loading count), name filter and sort right. Narrow
        screens get the short forms (pi's words, fewer of them)."""
        header = self.query_one("#resume-header", Static)
        width = header.size.width or 100
        where = "Current Folder" if self.scope == "current" else "All"
        named = "Named" if self.name_filter == "named" else "All"
        sort = SORT_LABELS[self.sort]
        for short in (False, True):
            title = "Resume" if short else f"Resume Session ({where})"
            right = Content.assemble(
                self._scope_text(state, short),
                ("  Name: ", "$pi-muted"),
                (named, "$pi-accent"),
                ("  Sort: ", "$pi-muted"),
                (sort, "$pi-accent"),
            )
            if len(title) + 1 + right.cell_length <= width:
                break
        gap = max(1, width - len(title) - right.cell_length)
        header.update(Content.assemble((title, "bold"), " " * gap, right))

    def _scope_text(self, state: _ScopeRows, short: bool) -> Content:
        if state.loading:
            progress = f"{state.done}/{state.total}" if state.total else "…"
            return Content.styled(f"Loading {progress}", "$pi-accent")
        if short:
            here = "◉ Current Folder" if self.scope == "current" else "◉ All"
            return Content.styled(here, "$pi-accent")
        if self.scope == "current":
            return Content.assemble(("◉ Current Folder", "$pi-accent"), (" | ○ All", "$pi-muted"))
        return Content.assemble(("○ Current Folder | ", "$pi-muted"), ("◉ All", "$pi-accent"))

    def _draw_hints(self) -> None:
        hints = self.query_one("#resume-hints", Static)
        if self.mode == "delete":
            hints.update(Content.styled(CONFIRM_DELETE, "$pi-error"))
        elif self.mode == "rename":
            hints.update(Content.styled("Rename Session · Enter save · Esc cancel", "bold"))
        elif self.status is not None:
            level, text = self.status
            hints.update(Content.styled(text, "$pi-error" if level == "error" else "$pi-accent"))
        else:
            hints.update(Content.styled("\n".join(HINTS), "$pi-muted"))

    def _draw_footer(self, count: int) -> None:
        """Position and search progress on the left, the selected file on the right."""
        footer = self.query_one("#resume-footer", Static)
        parts: list[str] = []
        if count:
            parts.append(f"({self.rows.selected + 1}/{count})")
        if self._searching is not None:
            parts.append(f"reading messages {self._searching[0]}/{self._searching[1]}…")
        if self.search.error:
            parts.append(f"bad regex: {self.search.error}")
        left = "  ".join(parts)
        selected = self.rows.selected_row
        path = shorten_path(selected.info.path) if selected is not None else ""
        room = (footer.size.width or 100) - len(left) - 2
        if len(path) > room:
            path = "…" + path[len(path) - max(0, room - 1) :] if room > 1 else ""
        gap = " " * max(2, (footer.size.width or 100) - len(left) - len(path))
        footer.update(Content.styled(f"{left}{gap}{path}", "$pi-dim"))

    def _say(self, text: str, level: str = "info") -> None:
        self.status = (level, text)
        self._draw_hints()

    # ------------------------------------------------------------------ input

    @on(Input.Changed, "#resume-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search = parse_search_query(event.value)
        self.status = None
        self.rows.selected = 0
        self._redraw(keep_selection=False)
        self._load_texts()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter in a text box is the box's own (Input.Submitted comes after the keys typed
        before it; a priority binding would run first and see the text without them)."""
        return not (action == "enter" and isinstance(self.focused, Input))

    @on(Input.Submitted, "#resume-search")
    def _search_submitted(self) -> None:
        if self.mode == "list":
            self._open()

    @on(Input.Submitted, "#resume-rename")
    def _rename_submitted(self, event: Input.Submitted) -> None:
        if self.mode == "rename":
            self._save_rename(event.value)

    @on(SessionRows.Picked)
    def _picked(self, event: SessionRows.Picked) -> None:
        self.rows.selected = event.index
        self._open()

    def action_move(self, step: int) -> None:
        """Up / Down."""
        if self.mode == "list":
            self.rows.move(step)
            self._draw_footer(len(self.rows.rows))

    def action_page(self, step: int) -> None:
        """PageUp / PageDown."""
        self.action_move(step * self.rows.page)

    def action_scope(self) -> None:
        """Tab: this folder ↔ all folders."""
        if self.mode != "list":
            return
        self.scope = "all" if self.scope == "current" else "current"
        self.rows.selected = 0
        self._load(self.scope)
        self._redraw(keep_selection=False)
        self._load_texts()

    def action_sort(self) -> None:
        """Ctrl+S: threaded → recent → relevance."""
        if self.mode == "list":
            self.sort = next_sort(self.sort)
            self._redraw()

    def action_named(self) -> None:
        """Ctrl+N: named sessions only, or all."""
        if self.mode == "list":
            self.name_filter = "named" if self.name_filter == "all" else "all"
            self._redraw()

    def action_enter(self) -> None:
        """Enter: open, confirm a delete, or save a rename."""
        if self.mode == "delete":
            self._confirm_delete()
        elif self.mode == "rename":
            self._save_rename(self.query_one("#resume-rename", Input).value)
        else:
            self._open()

    def action_back(self) -> None:
        """Esc: leave a confirmation or rename, else cancel the picker."""
        if self.mode != "list":
            self._back_to_list()
        else:
            self.dismiss(None)

    def _back_to_list(self) -> None:
        self.mode = "list"
        self.rows.deleting = None
        rename = self.query_one("#resume-rename", Input)
        rename.display = False
        self.set_focus(self.query_one("#resume-search", Input))
        self._redraw()

    def hold_keys_for_pick(self) -> None:
        row = self.rows.selected_row
        if self.mode == "rename":
            super().hold_keys_for_pick()
        elif self.key_hold is None and self.mode == "list" and row is not None:
            self.key_hold = hold_app_keys(self.app, FLOW_HOLD_AT_MOST_S)

    def _open(self) -> None:
        if self._has_picked:
            return  # a second Enter before the first one's pick was handled
        row = self.rows.selected_row
        if row is None or row.info.error is not None:
            self.key_hold, held = None, self.key_hold
            let_go(held)  # nothing opens: the keys typed since go on
            if row is not None:
                self._say(f"Cannot open {Path(row.info.path).name}: {row.info.error}", "error")
            return
        self._has_picked = True
        self.hold_keys_for_pick()
        self.dismiss(Path(row.info.path))

    # ------------------------------------------------------------------ delete

    def action_delete(self) -> None:
        """Ctrl+D: ask before moving the selected session to the trash."""
        row = self.rows.selected_row
        if self.mode != "list" or row is None:
            return
        if row.info.path == self.current_path:
            self._say("Cannot delete the currently active session", "error")
            return
        self.mode = "delete"
        self.rows.deleting = row.info.path
        self.set_focus(self.rows)  # typing does not edit the search while confirming
        self._redraw()

    @work(group="resume-edit", exit_on_error=False)
    async def _confirm_delete(self) -> None:
        path = self.rows.deleting
        self._back_to_list()
        if path is None:
            return
        try:
            moved = await trash_session(Path(path))
        except PituiError as exc:
            self._say(f"Failed to delete: {exc.message}", "error")
            return
        for state in self.lists.values():
            state.sessions = [s for s in state.sessions if s.path != path]
        self.status = ("info", f"Session moved to trash: {shorten_path(str(moved))}")
        self._redraw()

    # ------------------------------------------------------------------ rename

    def action_rename(self) -> None:
        """Ctrl+R: rename the selected session."""
        row = self.rows.selected_row
        if self.mode != "list" or row is None or self.renamer is None:
            return
        if row.info.error is not None:
            self._say("Cannot rename an unreadable file", "error")
            return
        self.mode = "rename"
        rename = self.query_one("#resume-rename", Input)
        rename.value = row.info.name or ""
        rename.display = True
        self.set_focus(rename)  # at once: the name may be typed in the same burst
        self._draw_hints()

    @work(group="resume-edit", exit_on_error=False)
    async def _save_rename(self, value: str) -> None:
        name = value.strip()
        row = self.rows.selected_row
        if not name or row is None or self.renamer is None:
            self.let_keys_go()  # still renaming: the keys typed after Enter are the name's
            return
        path = row.info.path
        self._back_to_list()
        self.let_keys_go()  # to the search field, which has the focus again
        try:
            await self.renamer(Path(path), name)
        except PituiError as exc:
            self._say(f"Rename failed: {exc.message}", "error")
            return
        fresh = await asyncio.to_thread(read_session_info, Path(path))
        for state in self.lists.values():
            state.sessions = [
                (fresh or replace(s, name=name)) if s.path == path else s for s in state.sessions
            ]
        self.status = ("info", f"Renamed: {name}")
        self._redraw()
