"""The composer: a multi-line editor that posts intents (submit, follow-up), with history.

Besides editing (see :mod:`pitui.ui.widgets.composer_tools`): ``@`` opens a fuzzy finder
over the project's files, Tab completes a path anywhere (and never leaves a composer that
holds text), Ctrl+G edits the text in ``$VISUAL``/``$EDITOR``, and images (Ctrl+V, or a
pasted image path) wait as chips until the prompt is sent.

Not first-frame: the first frame draws :class:`~pitui.ui.widgets.composer_parts.ComposerStandIn`
and the main screen mounts this one in its place right after (``MainScreen.mount_composer``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import TextArea

if TYPE_CHECKING:
    from pitui.ai.types import ImageContent
    from pitui.core.attachments.file_index import ProjectFileIndex
    from pitui.core.attachments.images import PendingImage
    from pitui.ui.widgets.attachment_chips import AttachmentBar, AttachmentChip
    from pitui.ui.widgets.key_gate import KeyHold
    from pitui.ui.widgets.suggestions import Suggestion, SuggestionList

NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})
FOLLOW_UP_KEYS = frozenset({"alt+enter"})
SUBMIT_KEYS = frozenset({"enter"})
EXTERNAL_EDITOR_KEYS = frozenset({"ctrl+g"})
"""pi's ``externalEditor`` default."""
PASTE_IMAGE_KEYS = frozenset({"ctrl+v"})
"""pi's ``pasteImage`` default."""
Completer = Callable[[str], Sequence["Suggestion"]]
_LIST_KEYS = frozenset({"up", "down", "tab", "escape"})
"""The keys the suggestion list takes while it is up (and the submit keys)."""


class Composer(TextArea):
    """Enter submits, Shift+Enter (or Ctrl+J) inserts a newline, Alt+Enter queues a follow-up.

    ↑ on the first line / ↓ on the last line walk the history of submitted texts.
    """

    class Submitted(Message):
        """The user sent ``text``; ``follow_up`` for Alt+Enter. The app decides what it means."""

        def __init__(
            self,
            composer: Composer,
            text: str,
            follow_up: bool = False,
            images: tuple[ImageContent, ...] = (),
            key_hold: KeyHold | None = None,
        ) -> None:
            super().__init__()
            self.composer = composer
            self.text = text
            self.follow_up = follow_up
            self.images = images
            self.key_hold = key_hold
            """For a slash command: the keys typed after its Enter, held until the
            command has opened its screen (whoever handles this lets them go)."""
            """Images attached in the composer (chips), to send with ``text``."""

        @property
        def control(self) -> Composer:
            return self.composer

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(
            id=id, classes=classes, soft_wrap=True, show_line_numbers=False, tab_behavior="focus"
        )
        self.sent_history: list[str] = []
        self._history_pos: int | None = None
        self._draft = ""
        # Keys the composer reads itself (the app sets them from keybindings.json).
        self.submit_keys = SUBMIT_KEYS
        self.newline_keys = NEWLINE_KEYS
        self.follow_up_keys = FOLLOW_UP_KEYS
        self.completer: Completer | None = None
        """Suggestions for text starting with ``/`` (shown in a SuggestionList)."""
        self.app_keys: Mapping[str, Callable[[], Awaitable[bool]]] = {}
        """Keys the user bound to app actions that the editor binds too: the app wins (pi)."""
        self.external_editor_keys = EXTERNAL_EDITOR_KEYS
        self.paste_image_keys = PASTE_IMAGE_KEYS
        self.external_editor: str | None = None
        """pi's ``externalEditor`` setting (else ``$VISUAL``, ``$EDITOR``)."""
        self.project_root: Path | None = None
        """Where ``@`` files and Tab paths are looked for (None: the current folder)."""
        self.file_index: ProjectFileIndex | None = None
        """The ``@`` finder's index, built in the background on the first ``@``."""
        self.attachments_enabled = False
        """Whether images can be attached (the app sends :attr:`Submitted.images`)."""
        self.images: list[PendingImage] = []
        self._command_hold: KeyHold | None = None
        """Held since a command's Enter: the keys already routed here go back to the app's
        gate, in order, and reach what the command opens."""
        self._suggested_for: tuple[str, tuple[int, int]] | None = None
        """The text and cursor the suggestion list was last built for."""
        self._suggestions: SuggestionList | None = None
        """The autocomplete list, once found (:meth:`_suggestion_list`)."""

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self._command_hold is not None:  # keys routed here before a command's Enter
            from pitui.ui.widgets.key_gate import hand_back

            if hand_back(self.app, self._command_hold, event):
                event.stop()
                event.prevent_default()
                return
            self._command_hold = None
        if self._complete_key(key) or await self._tool_key(key):
            event.stop()
            event.prevent_default()
            return
        app_action = self.app_keys.get(key)
        if app_action is not None and await app_action():
            event.stop()
            event.prevent_default()
            return
        if key in self.submit_keys or key in self.follow_up_keys:
            event.stop()
            event.prevent_default()
            self.submit(follow_up=key in self.follow_up_keys)
            return
        if key in self.newline_keys:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key == "up" and self.cursor_at_first_line and self._recall(-1):
            event.stop()
            event.prevent_default()
            return
        if key == "down" and self.cursor_at_last_line and self._recall(1):
            event.stop()
            event.prevent_default()
            return
        if await self._run_own_binding(key):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_own_binding(self, key: str) -> bool:
        """Run the editor's own binding for ``key`` (Backspace, ←, Ctrl+W …) now.

        Textual runs a binding only once the key event has bubbled up to the app, and
        bubbling queues it behind the keys that follow: in one burst, ``Backspace d`` ran
        as ``d Backspace`` (``abc⌫def`` gave ``abcde``). Running the editor's bindings
        here, as the key arrives, applies every key in the order typed; keys the editor
        does not bind still bubble to the screen and the app as before.
        """
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    async def _tool_key(self, key: str) -> bool:
        """Ctrl+G, Ctrl+V, Tab with text, Backspace on a chip: True when handled."""
        from pitui.ui.widgets import composer_tools as tools

        if key in self.external_editor_keys:
            await tools.external_edit(self)
        elif key in self.paste_image_keys and self.attachments_enabled:
            await tools.paste_clipboard_image(self)
        elif key == "tab" and self.text:
            await tools.tab_complete(self)
        elif key == "backspace" and self.images and self.cursor_location == (0, 0):
            self.remove_image(len(self.images) - 1)
        else:
            return False
        return True

    async def _on_paste(self, event: events.Paste) -> None:
        """A pasted path to an image attaches the image instead of inserting the path
        (any other paste goes on to TextArea's own handler, which Textual calls next)."""
        from pitui.ui.widgets import composer_tools as tools

        if self.attachments_enabled:
            path = tools.image_path_in(event.text, self.project_root or Path.cwd())
            if path is not None and await tools.attach_image_file(self, path):
                event.stop()
                event.prevent_default()

    def submit(self, follow_up: bool = False) -> None:
        """Post the current text (if any) and its images, and clear the editor."""
        text = self.text
        if not text.strip() and not self.images:
            return
        if text.strip() and (not self.sent_history or self.sent_history[-1] != text):
            self.sent_history.append(text)
        self._history_pos = None
        images = tuple(image.content for image in self.images)
        self.clear()
        self.images = []
        self._show_chips()
        held = None
        if text.startswith("/"):  # a command may open a screen: the keys after it wait
            from pitui.ui.widgets.key_gate import hold_app_keys

            held = self._command_hold = hold_app_keys(self.app)
        self.post_message(self.Submitted(self, text, follow_up, images, held))

    def add_image(self, image: PendingImage) -> None:
        """Attach ``image`` to the next prompt (a chip shows it)."""
        self.images.append(image)
        self._show_chips()

    def remove_image(self, index: int) -> None:
        """Drop the attachment at ``index``."""
        if 0 <= index < len(self.images):
            del self.images[index]
            self._show_chips()

    def _show_chips(self) -> None:
        from textual.widget import Widget

        from pitui.ui.widgets.attachment_chips import AttachmentBar
        from pitui.ui.widgets.composer_tools import chip_labels

        if not isinstance(self.parent, Widget):
            return
        found = self.parent.query_children(AttachmentBar)
        bar: AttachmentBar | None = found.first() if found else None
        if bar is None:
            if not self.images:
                return
            bar = AttachmentBar(id="attachments")
            self.parent.mount(bar, before=self)
            bar.can_focus = False
        bar.show(chip_labels(self.images))

    def on_attachment_chip_removed(self, message: AttachmentChip.Removed) -> None:
        self.remove_image(message.index)

    def _recall(self, step: int) -> bool:
        if not self.sent_history:
            return False
        if self._history_pos is None:
            if step > 0:
                return False
            self._draft = self.text
            pos = len(self.sent_history) - 1
        else:
            pos = self._history_pos + step
        if pos >= len(self.sent_history):
            self._history_pos = None
            self.load_text(self._draft)
            return True
        if pos < 0:
            return True  # stay on the oldest entry
        self._history_pos = pos
        self.load_text(self.sent_history[pos])
        self.move_cursor(self.document.end)
        return True

    def put_text(self, text: str) -> None:
        """Replace the text and put the cursor after it, where typing goes on."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.set_class(self.text.lstrip().startswith("!"), "-bash")
        if self._suggested_for != (self.text, self.cursor_location):
            # Not when a key of the same burst has already built the list for this text:
            # the list it built (or closed, with Esc) stands.
            self.refresh_suggestions()

    def refresh_suggestions(self) -> None:
        """Show what fits the text: commands after ``/``, files after ``@``."""
        from pitui.ui.widgets import composer_tools as tools

        suggestions = self._suggestion_list()
        if suggestions is None:
            return
        text = self.text
        self._suggested_for = (text, self.cursor_location)
        if text.startswith("/") and self.completer is not None:
            suggestions.show(self.completer(text))
            return
        offset = tools.cursor_offset(self)
        if tools.at_query(text, offset) is None:
            suggestions.show(())
            return
        suggestions.show(tools.file_suggestions(tools.project_index(self), text, offset))

    def show_suggestions(self, items: Sequence[Suggestion]) -> None:
        """Offer ``items`` in the list above the composer."""
        suggestions = self._suggestion_list()
        if suggestions is not None:
            self._suggested_for = (self.text, self.cursor_location)
            suggestions.show(items)

    def _suggestion_list(self) -> SuggestionList | None:
        """The screen's autocomplete list; None until it is mounted (after the first frame).

        Looked up once, then kept: every key and every change asks for it, and a query
        walks the whole screen (~2 ms a key with a long conversation mounted)."""
        from pitui.ui.widgets.suggestions import SuggestionList

        kept = self._suggestions
        if kept is not None and kept.is_attached and kept.screen is self.screen:
            return kept
        kept = self._suggestions = next(iter(self.screen.query(SuggestionList)), None)
        return kept

    def _complete_key(self, key: str) -> bool:
        """↑/↓ move, Tab completes, Enter completes and sends, Esc closes the list.

        The list follows the text on ``Changed``, which arrives after the keys of a burst
        already queued: a list built for an older text, or not built yet (``/mo⏎`` in one
        burst), is rebuilt first, so a key acts on the suggestions for the text as it is
        now (none: the key is the editor's again).
        """
        if key not in _LIST_KEYS and key not in self.submit_keys:
            return False
        suggestions = self._suggestion_list()
        if suggestions is None:
            return False
        if self._suggested_for != (self.text, self.cursor_location):
            self.refresh_suggestions()
        if not suggestions.active:
            return False
        if key in ("up", "down"):
            suggestions.move(-1 if key == "up" else 1)
        elif key == "escape":
            suggestions.hide()
        elif key == "tab" or key in self.submit_keys:
            chosen = suggestions.selected
            if chosen is not None and chosen.start is not None:
                self._take_word(chosen)  # a path or an @ file: completes, never sends
                suggestions.hide()
                return True
            if chosen is not None:
                self.load_text(chosen.value)
                self.move_cursor(self.document.end)
            if key != "tab":
                suggestions.hide()
                self.submit()
        else:
            return False
        return True

    def _take_word(self, chosen: Suggestion) -> None:
        from pitui.ui.widgets import composer_tools as tools

        assert chosen.start is not None
        end = chosen.end if chosen.end is not None else tools.cursor_offset(self)
        value = chosen.value
        at_end = end >= len(self.text) or self.text[end].isspace()
        if value.startswith("@") and not value.endswith("/") and at_end:
            value += " "  # a picked file: ready for the next word
        tools.replace_range(self, chosen.start, end, value)
