"""The composer: a multi-line editor that posts intents (submit, follow-up), with history."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Static, TextArea

from pitui.core.sanitize import inert

if TYPE_CHECKING:
    from pitui.ui.widgets.suggestions import Suggestion, SuggestionList

NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})
FOLLOW_UP_KEYS = frozenset({"alt+enter"})
SUBMIT_KEYS = frozenset({"enter"})
Completer = Callable[[str], Sequence["Suggestion"]]
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


class Composer(TextArea):
    """Enter submits, Shift+Enter (or Ctrl+J) inserts a newline, Alt+Enter queues a follow-up.

    ↑ on the first line / ↓ on the last line walk the history of submitted texts.
    """

    class Submitted(Message):
        """The user sent ``text``; ``follow_up`` for Alt+Enter. The app decides what it means."""

        def __init__(self, composer: Composer, text: str, follow_up: bool = False) -> None:
            super().__init__()
            self.composer = composer
            self.text = text
            self.follow_up = follow_up

        @property
        def control(self) -> Composer:
            return self.composer

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
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

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self._complete_key(key):
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

    def submit(self, follow_up: bool = False) -> None:
        """Post the current text (if any) and clear the editor."""
        text = self.text
        if not text.strip():
            return
        if not self.sent_history or self.sent_history[-1] != text:
            self.sent_history.append(text)
        self._history_pos = None
        self.clear()
        self.post_message(self.Submitted(self, text, follow_up))

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
        suggestions = self._suggestion_list()
        if suggestions is not None:
            text = self.text
            wanted = text.startswith("/") and self.completer is not None
            suggestions.show(self.completer(text) if self.completer and wanted else ())

    def _suggestion_list(self) -> SuggestionList | None:
        """The screen's autocomplete list; None until it is mounted (after the first frame)."""
        from pitui.ui.widgets.suggestions import SuggestionList

        found = self.screen.query(SuggestionList)
        return found.first() if found else None

    def _complete_key(self, key: str) -> bool:
        """↑/↓ move, Tab completes, Enter completes and sends, Esc closes the list."""
        suggestions = self._suggestion_list()
        if suggestions is None or not suggestions.active:
            return False
        if key in ("up", "down"):
            suggestions.move(-1 if key == "up" else 1)
        elif key == "escape":
            suggestions.hide()
        elif key == "tab" or key in self.submit_keys:
            chosen = suggestions.selected
            if chosen is not None:
                self.load_text(chosen.value)
                self.move_cursor(self.document.end)
            if key != "tab":
                suggestions.hide()
                self.submit()
        else:
            return False
        return True

    def show_thinking_level(self, level: str | None) -> None:
        """Border in the level's colour (pi's ``thinking<Level>``); None: the plain border."""
        for name in THINKING_LEVELS:
            self.set_class(name == level, f"-thinking-{name}")


class QueueView(Static):
    """Queued steering / follow-up messages above the composer (hidden when empty)."""

    def show(self, steering: tuple[str, ...], follow_up: tuple[str, ...]) -> None:
        """Redraw the queue; hides itself when both queues are empty."""
        lines = [f"Steering: {inert(t)}" for t in steering]
        lines += [f"Follow-up: {inert(t)}" for t in follow_up]
        self.display = bool(lines)
        if lines:
            lines.append("↳ alt+up to edit all queued messages")
        self.update(Content("\n".join(lines)))


class ActivityLine(Static):
    """What the agent is busy with (``Working...``, a retry wait …); hidden when idle."""

    def show(self, activity: str | None) -> None:
        """Show ``activity`` or hide the line."""
        self.display = activity is not None
        self.update(Content(activity or ""))
