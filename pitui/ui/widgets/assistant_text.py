"""An assistant text block: Markdown drawn as styled text, streamed without re-rendering.

A finished reply is one :class:`~textual.widgets.Static`. While a reply streams, only its
*live tail* (the blocks after the last frozen one) is parsed and drawn again per frame;
once the tail holds more than :attr:`AssistantMarkdown.FREEZE_AFTER` complete top-level
blocks, all but the last are frozen into a Static of their own that is never touched
again. The cost of a frame is thus bounded by the tail, not by the length of the reply,
and a long reply stays a handful of widgets (Textual's ``Markdown`` widget would be
hundreds, all laid out again on every frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from pitui.core.sanitize import inert
from pitui.ui import md_render
from pitui.ui.view.state import AssistantItem
from pitui.ui.widgets.base import PANE_MARKS
from pitui.ui.widgets.laid_out import laid_out_size
from pitui.ui.widgets.search_marks import SearchMarks, highlight

if TYPE_CHECKING:
    from textual.css.styles import RulesMap


class _FrozenPart(Static):
    """Blocks of a streaming reply that are done: drawn once, from their construction."""

    virtual_size = laid_out_size()  # mounting one is one layout, not two


class _LiveTail(Static):
    """The streaming tail: parsed and drawn at most once per frame, however many updates."""

    virtual_size = laid_out_size()  # a new line is one layout, not two

    def __init__(self) -> None:
        super().__init__(classes="md-part")
        self._source = ""
        self._drawn: tuple[str, Content] | None = None
        self.marks: tuple[SearchMarks | None, int] = (None, 0)
        """Search highlights and how many matches the frozen parts above hold."""

    def preset(self, source: str) -> None:
        """Draw ``source`` from the first frame on (before the widget is mounted)."""
        self._source = source

    def show(self, source: str) -> None:
        """Draw ``source`` on the next frame; lay the screen out again only if the tail's
        height changes (most tokens end on the line that is there: a layout of the whole
        screen would place every widget again for nothing)."""
        if source != self._source:
            self._source = source
            width, height = self.content_size
            # What Textual's layout would find (Widget.get_content_height), cached on the
            # content for the layout or the drawing that follows.
            rules = cast("RulesMap", self.styles)  # as Textual passes them (a mapping of rules)
            same = width > 0 and self._content().get_height(rules, width) == height
            self.refresh(layout=not same)

    def _content(self) -> Content:
        if self._drawn is None or self._drawn[0] != self._source:
            self._drawn = (self._source, md_render.render(self._source))
        return self._drawn[1]

    def render(self) -> Content:
        marks, skip = self.marks
        content = self._content()
        return highlight(content, marks, skip)[0] if marks else content

    def highlighted(self, marks: SearchMarks | None) -> bool:
        """Whether ``marks`` match anything in the tail."""
        return marks is not None and marks.pattern.search(self._content().plain) is not None


def branch_switch(branch: tuple[int, int]) -> Content:
    """The ``‹ i/n ›`` line of a message that starts the i-th of n sibling branches."""
    index, count = branch
    return Content.styled(f"‹ {index}/{count} ›  alt+←/→ switch branch", "$pi-muted")


class AssistantMarkdown(Vertical):
    """Shows one :class:`~pitui.ui.view.state.AssistantItem` as Markdown."""

    DEFAULT_CSS = """
    AssistantMarkdown { height: auto; }
    AssistantMarkdown > .md-part { height: auto; }
    AssistantMarkdown > .md-part.-cont { margin: 1 0 0 0; }
    """
    virtual_size = laid_out_size()  # see pitui.ui.widgets.laid_out
    FREEZE_AFTER: ClassVar[int] = 6
    """Complete top-level blocks the live tail may hold before they are frozen."""

    def __init__(self, item: AssistantItem) -> None:
        super().__init__(classes="-streaming" if item.streaming else "")
        self.item_id = item.id
        self.streaming = item.streaming
        self._raw = item.text
        self._shown = inert(item.text)
        self._frozen = 0  # characters of _shown drawn by frozen parts
        self._parts: list[Static] = []
        self._part_contents: list[Content] = []
        self._marks: SearchMarks | None = None
        self._live = _LiveTail()
        self._blanks_checked = 0  # blank lines in the tail when freezing last failed
        # The reply starts a sibling branch: its ``‹ i/n ›`` line, mounted only then.
        self._branch = item.branch
        self._switch: Static | None = None

    def compose(self) -> ComposeResult:
        if self.streaming:
            while self._freeze_ready():
                yield self._freeze()
        # The text is in the first layout: a reply shown in full (a resumed session, a
        # rebuilt view) must not draw empty for a frame, moving everything below it.
        self._live.preset(self._tail())
        yield self._live
        if self._branch is not None:
            yield self._switch_line(self._branch)

    def _switch_line(self, branch: tuple[int, int]) -> Static:
        self._switch = Static(branch_switch(branch), classes="branch-switch")
        return self._switch

    async def _show_branch(self, branch: tuple[int, int] | None) -> None:
        """Show, change or take away the reply's ``‹ i/n ›`` line."""
        if branch == self._branch:
            return
        self._branch = branch
        if branch is None:
            if self._switch is not None:
                await self._switch.remove()
                self._switch = None
        elif self._switch is None:
            await self.mount(self._switch_line(branch))
        else:
            self._switch.update(branch_switch(branch))

    def on_mount(self) -> None:
        self._draw_live()

    async def update_item(self, item: AssistantItem) -> None:
        """Draw the new text: append to the tail, or start over if it was rewritten."""
        self.streaming = item.streaming
        self.set_class(item.streaming, "-streaming")
        await self._show_branch(item.branch)
        if item.text != self._raw:
            if item.text.startswith(self._raw):
                # Sanitise only the new part: the reply may be long and this runs per frame.
                self._shown += inert(item.text[len(self._raw) :])
            else:
                self._shown = inert(item.text)
                await self._reset()
            self._raw = item.text
            while self.streaming and self._freeze_ready():
                await self.mount(self._freeze(), before=self._live)
            self._draw_live()

    async def rebind(self, item: AssistantItem) -> None:
        """Show another reply, as ``AssistantMarkdown(item)`` would: drawn from scratch (a
        reply streamed here has frozen parts a fresh widget would not have), no marks."""
        self.item_id = item.id
        self.remove_class(*PANE_MARKS)
        self.set_search(None)
        self._raw = item.text
        self._shown = inert(item.text)
        await self._reset()
        self.streaming = item.streaming
        self.set_class(item.streaming, "-streaming")
        while self.streaming and self._freeze_ready():
            await self.mount(self._freeze(), before=self._live)
        self._draw_live()
        await self._show_branch(item.branch)

    def set_search(self, marks: SearchMarks | None) -> None:
        """Highlight the search's matches across the parts (None: none)."""
        if marks != self._marks:
            self._marks = marks
            self._draw_marks()

    def _draw_marks(self) -> None:
        skip = 0
        for part, content in zip(self._parts, self._part_contents, strict=True):
            shown, count = highlight(content, self._marks, skip)
            if count or part.has_class("-marked"):
                part.update(shown, layout=False)  # styles only: no new layout
            part.set_class(bool(count), "-marked")
            skip += count
        live = self._live
        previous = live.marks
        live.marks = (self._marks, skip)
        if live.highlighted(self._marks) or (
            previous[0] is not None and live.highlighted(previous[0])
        ):
            live.refresh()

    @property
    def shown_text(self) -> str:
        """The markdown source displayed so far."""
        return self._shown

    def _tail(self) -> str:
        return self._shown[self._frozen :]

    def _draw_live(self) -> None:
        self._live.show(self._tail())
        self._live.set_class(bool(self._parts), "-cont")

    def _freeze_ready(self) -> bool:
        tail = self._tail()
        blanks = tail.count("\n\n")
        if blanks <= max(self.FREEZE_AFTER, self._blanks_checked):
            return False  # parse only when a block may have ended since the last try
        if self._cut(tail) > 0:
            self._blanks_checked = 0
            return True
        self._blanks_checked = blanks
        return False

    def _cut(self, tail: str) -> int:
        """Characters of ``tail`` before its last top-level block, if enough blocks are done."""
        starts = md_render.block_starts(md_render.parse(tail))
        if len(starts) <= self.FREEZE_AFTER:
            return 0
        line = starts[-1]
        offset = 0
        for _ in range(line):
            offset = tail.index("\n", offset) + 1
        return offset

    def _freeze(self) -> Static:
        tail = self._tail()
        cut = self._cut(tail)
        content = md_render.render(tail[:cut])
        part = _FrozenPart(content, classes="md-part")
        part.set_class(bool(self._parts), "-cont")
        self._parts.append(part)
        self._part_contents.append(content)
        if self._marks is not None:
            self.call_after_refresh(self._draw_marks)
        self._frozen += cut
        return part

    async def _reset(self) -> None:
        parts, self._parts = self._parts, []
        self._part_contents = []
        self._frozen = 0
        self._blanks_checked = 0
        if parts:
            await self.remove_children(parts)
