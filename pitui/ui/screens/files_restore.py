"""Files that differ at a point of the tree: the question "restore them?" asked when a
move through the tree (Enter, Alt+←/→, a fork) reaches other files, and the preview of
what a restore would change (``/diff``, Shift+D in the Branches pane).

Both take what the core computed (:class:`~pitui.core.checkpoints.file_diffs.FileDiff`
rows, working tree → the point's files) and draw the diffs with the tool cards' renderer.
"""

from __future__ import annotations

from typing import ClassVar, Literal, TypeAlias

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pitui.core.checkpoints.file_diffs import FileDiff
from pitui.core.sanitize import inert
from pitui.ui.widgets.tool_renderers import render_diff

FilesChoice: TypeAlias = Literal["restore", "keep"]
RewindChoice: TypeAlias = Literal["conversation", "files", "both"]
REWIND_CHOICES: tuple[tuple[RewindChoice, str], ...] = (
    ("both", "Conversation and files"),
    ("conversation", "Conversation only (the files stay as they are)"),
    ("files", "Files only (the conversation stays here)"),
)
_MARK = {"added": "A", "deleted": "D", "modified": "M"}


def files_word(count: int) -> str:
    """``1 file`` / ``3 files``."""
    return f"{count} file{'s' if count != 1 else ''}"


def preview_content(diffs: list[FileDiff]) -> Content:
    """The list of files, then each file's diff (pi's display diff, coloured)."""
    parts: list[Content | tuple[str, str] | str] = []
    for diff in diffs:
        parts.append((f"{_MARK.get(diff.kind, '?')} {inert(diff.path)}\n", "$pi-accent"))
    for diff in diffs:
        parts.append((f"\n── {inert(diff.path)} ({diff.kind})\n", "bold"))
        if diff.binary or not diff.display:
            parts.append((inert(diff.patch), "$pi-muted"))
        else:
            parts.append(render_diff(diff.display))
            parts.append("\n")
    return Content.assemble(*parts)


class RestoreFilesQuestion(ModalScreen[FilesChoice | None]):
    """The point you are going to has other files: restore them, keep them, or look."""

    CSS_PATH = "files_restore.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "back", show=False, id="restoreFiles.cancel"),
        Binding("p", "preview", "preview", show=False, id="restoreFiles.preview"),
    ]

    def __init__(self, target: str, diffs: list[FileDiff]) -> None:
        super().__init__()
        self.target = target
        self.diffs = diffs

    def compose(self) -> ComposeResult:
        count = files_word(len(self.diffs))
        with Vertical(id="restore-dialog", classes="pitui-dialog"):
            verb = "differs" if len(self.diffs) == 1 else "differ"
            yield Static(f"{count} {verb} at this point", classes="dialog-title")
            yield Static(self.target, classes="dialog-detail", markup=False)
            yield OptionList(
                Option(f"Restore files ({len(self.diffs)})", id="restore"),
                Option("Keep the files as they are", id="keep"),
                Option("Preview the changes", id="preview"),
                id="restore-list",
            )
            yield Static(
                "Your files are checkpointed first · p preview · Esc back",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == "preview":
            self.action_preview()
        elif event.option.id in ("restore", "keep"):
            self.dismiss("restore" if event.option.id == "restore" else "keep")

    def action_preview(self) -> None:
        self.app.push_screen(FilesPreview(self.target, self.diffs))

    def action_cancel(self) -> None:
        self.dismiss(None)


class FilesPreview(ModalScreen[None]):
    """What a restore to a point would change, file by file; Esc or q closes."""

    CSS_PATH = "files_restore.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", show=False, id="filesPreview.close"),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
    ]

    def __init__(self, target: str, diffs: list[FileDiff]) -> None:
        super().__init__()
        self.target = target
        self.diffs = diffs

    def compose(self) -> ComposeResult:
        with Vertical(id="preview-dialog", classes="pitui-dialog"):
            title = f"{files_word(len(self.diffs))} would change (working tree → this point)"
            yield Static(title, classes="dialog-title")
            yield Static(self.target, classes="dialog-detail", markup=False)
            with VerticalScroll(id="preview-scroll"):
                yield Static(preview_content(self.diffs), id="preview-body")
            yield Static("↑↓ PgUp PgDn scroll · Esc close", classes="dialog-hint")

    def action_scroll(self, lines: int) -> None:
        self.query_one("#preview-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


class RewindChooser(ModalScreen[RewindChoice | None]):
    """``/rewind``: go back to before a message in the conversation, the files, or both."""

    CSS_PATH = "files_restore.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "back", show=False, id="rewind.cancel"),
    ]

    def __init__(self, target: str, files: int) -> None:
        super().__init__()
        self.target = target
        self.files = files

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog", classes="pitui-dialog"):
            yield Static("Rewind to before this message", classes="dialog-title")
            yield Static(self.target, classes="dialog-detail", markup=False)
            options = [
                Option(text, id=key, disabled=key != "conversation" and not self.files)
                for key, text in REWIND_CHOICES
            ]
            yield OptionList(*options, id="restore-list")
            note = f"{files_word(self.files)} would change" if self.files else "no file differs"
            yield Static(f"{note} · your files are checkpointed first · Esc back",
                         classes="dialog-hint")  # fmt: skip

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0 if self.files else 1
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        choice = next((k for k, _ in REWIND_CHOICES if k == event.option.id), None)
        self.dismiss(choice)

    def action_cancel(self) -> None:
        self.dismiss(None)
