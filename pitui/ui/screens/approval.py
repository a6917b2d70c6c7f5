"""The approval modal: may this tool call run?

Keyboard first: ``y`` allow once, ``a`` always (for this project), ``n`` deny (focuses the
reason field; Enter there sends the denial with the reason), Enter presses the focused
choice, Esc denies (with whatever reason was typed). It shows the tool, its arguments,
why the gate asks, and for edit / write the diff against the file as it is now.

Typing cannot answer it. Keys typed before it appeared are never delivered to it, and its
choices arm only once the keyboard has been quiet for :data:`ARM_DELAY` (every key while
unarmed restarts the wait), shown by a dimmed key row reading "keys arm in a moment", as
browsers guard their security prompts; a printable key that is not an answer (Space
included, which would press the focused button) un-arms it again. Printable keys typed
meanwhile go on into the composer underneath, so a sentence typed through the moment the
dialog opens is kept there.

Its keys are judged where the app hands a key to the focused widget (every focusable
widget here is :class:`_GuardedKeys`), not as bindings: a binding runs only after the key
has bubbled up to the app, behind the keys typed after it, so ``n`` followed quickly by
``no thanks`` sent the space to the focused "Allow once" button. Judged at hand-over, ``n``
moves focus to the reason field before the next key is handed to anyone.

"Always" is narrow and visible: the button names the rule. For bash, ``a`` first shows
the rule (the exact command) in a field to edit, ending it in `` *`` makes a prefix, and
Enter saves it; the core checks the edit (:func:`~pitui.core.command_rules.validate_rule`).

The call cannot hide in it (:mod:`pitui.ui.view.approval_text`): the title is one line
with every control character and newline spelled out (``⏎``, ``\x1b``), a bash command
is shown in full in a virtual scrolling view (only the rows on screen are ever made, so a
1 MB command opens at once: ``python bench/approval_dialog.py``; ↑ ↓ PgUp PgDn Home End
scroll it) with its size said when it
is longer than the view, and the reason and the key row sit in a footer docked to the
bottom of the dialog, on screen whatever the size of the call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, Static
from textual.widgets.button import ButtonVariant

from pitui.core.command_rules import validate_rule
from pitui.core.permissions import ApprovalRequest, ApprovalResponse, Choice
from pitui.core.sanitize import inert, visible
from pitui.ui.approval_preview import ApprovalPreview
from pitui.ui.view.approval_text import BodyRows, call_text, size_note, title_line
from pitui.ui.widgets.after_layout import AfterLayout
from pitui.ui.widgets.key_gate import EnterHoldsKeys
from pitui.ui.widgets.tool_renderers import render_diff

MAX_ARG_CHARS = 4000
MAX_RULE_EDIT = 2000
"""A longer "always" rule is saved as it is (exact), not offered for editing in a field."""
LABEL_RULE_CHARS = 24
SCROLL_HINT = "↑ ↓ PgUp PgDn Home End scroll"
ARM_DELAY = 0.4
"""Seconds of keyboard quiet before the choices arm."""
BUTTON_CHOICES: dict[str, Choice] = {"allow_once": "allow_once", "always": "always", "deny": "deny"}
UNARMED_HINT = "keys arm in a moment…"
ARMED_HINT = "y allow once · a always · n deny with a reason · esc deny"
NO_ALWAYS_HINT = "y allow once · n deny with a reason · esc deny"
SHORT_HINTS = {
    ARMED_HINT: "y once · a always · n deny · esc deny",
    NO_ALWAYS_HINT: "y once · n deny · esc deny",
}
"""The key row where the full one would be cut (60 columns cut off "esc deny")."""
RULE_HINT = "Remember for this project (edit it; end with ' *' for a prefix), Enter saves:"


def request_title(request: ApprovalRequest) -> Content:
    """``Allow edit src/config.ts?``, ``Allow $ echo safe⏎×150touch x?``: one visible line."""
    call = title_line(request.tool_name, request.args)
    return Content.assemble(("Allow ", "bold"), (call, "bold"), ("?", "bold"))


def bash_command(request: ApprovalRequest) -> str | None:
    """The command of a bash call (shown in the scrolling command view), else None."""
    command = request.args.get("command")
    return command if request.tool_name == "bash" and isinstance(command, str) else None


def request_body(request: ApprovalRequest, preview: ApprovalPreview | None) -> Content:
    """The diff for edit / write, else the arguments as JSON (bash: see the command view)."""
    if preview is not None:
        if preview.problem:
            return Content.styled(inert(preview.problem), "$pi-error")
        label = "new file" if preview.new_file else "diff"
        return Content.assemble((f"{label}\n", "$pi-muted"), render_diff(preview.diff))
    text = json.dumps(request.args, indent=2, ensure_ascii=False)
    if len(text) > MAX_ARG_CHARS:
        text = text[:MAX_ARG_CHARS] + "\n…"
    return Content.styled(inert(text), "$pi-toolOutput")


def always_label(request: ApprovalRequest) -> str:
    """What "always" would remember."""
    if request.tool_name == "bash" and request.always_rule:
        rule = visible(request.always_rule[: LABEL_RULE_CHARS + 1])
        if len(rule) > LABEL_RULE_CHARS:
            rule = rule[:LABEL_RULE_CHARS] + "…"
        return f"Always allow `{rule}` here [a]"
    return f"Always allow {request.tool_name} here [a]"


# A plain mixin at run time (a Widget base would add a CSS type and a DEFAULT_CSS layer).
if TYPE_CHECKING:
    _Base = Widget
else:
    _Base = object


class _GuardedKeys(_Base):
    """The dialog's focusable widgets: each key is judged by the dialog as it is handed over."""

    def _forward_event(self, event: events.Event) -> None:
        # Textual's hook for "the app sends this event to the focused widget".
        screen = self.screen
        if isinstance(event, events.Key) and isinstance(screen, ApprovalScreen):  # noqa: SIM102
            if screen.intercept_key(event, self):
                return
        super()._forward_event(event)


class _ChoiceButton(_GuardedKeys, Button):
    """A choice of the dialog."""


class _DialogInput(_GuardedKeys, Input):
    """The reason and rule fields."""


class _CommandView(ScrollView, can_focus=False):
    """The whole command, drawn a row at a time: only the rows in view are ever made
    (:class:`BodyRows` slices them from the command when drawn), so a 1 MB command costs
    one scan to count its rows, not a list of them.

    The rows are cut while the dialog is laid out (:meth:`get_content_height`), at the
    width the view gets, so the dialog's first frame already shows the command.

    Not focusable (every focusable widget here must be a _GuardedKeys): the dialog's
    arrow and page keys scroll it, and so does the mouse wheel.
    """

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(id=id)
        self._text = text
        self.rows: Sequence[str] = ()
        self._cut_at: tuple[int, int | None] | None = None
        """The width and the max height the rows were cut for."""

    @property
    def line_count(self) -> int:
        """How many rows the command takes."""
        return len(self.rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._cut(width)
        return len(self.rows)

    def _cut(self, width: int) -> None:
        """Cut the command at ``width`` cells, less the scrollbar's column when its rows
        will not all fit (the max height is a number of cells: CSS's, or the dialog's fit)."""
        limit = self.styles.max_height
        most = int(limit.value) if limit is not None and limit.is_cells else None
        if width <= 0 or (width, most) == self._cut_at:
            return
        self._cut_at = (width, most)
        rows = BodyRows(self._text, width)
        if most is not None and len(rows) > most:
            rows = BodyRows(self._text, width - self.styles.scrollbar_size_vertical)
        self.rows = rows
        # Set during layout: no second layout pass for it (the placement that follows
        # updates the scrollbars from it).
        self.set_reactive(_CommandView.virtual_size, Size(rows.width, len(rows)))

    def render_line(self, y: int) -> Strip:
        style = self.rich_style
        width = self.size.width
        index = self.scroll_offset.y + y
        if index >= len(self.rows):
            return Strip.blank(width, style)
        return Strip([Segment(self.rows[index], style)]).crop_extend(0, width, style)


def _button(label: str, choice: str, variant: ButtonVariant) -> Button:
    # Content, not markup: "[y]" is a key hint, not a style tag.
    return _ChoiceButton(Content(label), id=choice, variant=variant, compact=True)


class ApprovalScreen(EnterHoldsKeys, ModalScreen[ApprovalResponse | None]):
    """Asks the user about one :class:`ApprovalRequest`; dismisses with the answer.

    Enter in a field (the reason, the rule) or on a choice is a binding, run after the
    keys typed behind it reached the widget (``because⏎more`` denied "becausemore", and
    ``⏎hello`` un-armed the dialog before the press counted): once armed, the keys after
    an Enter wait until it is handled (:class:`EnterHoldsKeys`), then go to the composer
    (the dialog answered) or the field that has the focus now."""

    CSS_PATH = "approval.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose('allow_once')", "allow once", id="approval.allow_once"),
        Binding("a", "always", "always", id="approval.always"),
        Binding("n", "deny_with_reason", "deny", id="approval.deny"),
        Binding("escape", "cancel", "deny", id="approval.cancel"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
        Binding("up", "scroll('up')", show=False),
        Binding("down", "scroll('down')", show=False),
        Binding("pageup", "scroll('page_up')", show=False),
        Binding("pagedown", "scroll('page_down')", show=False),
        Binding("home", "scroll('home')", show=False),
        Binding("end", "scroll('end')", show=False),
    ]

    def __init__(
        self,
        request: ApprovalRequest,
        preview: ApprovalPreview | None,
        arm_delay: float = ARM_DELAY,
    ) -> None:
        super().__init__()
        self.request = request
        self.preview = preview
        self.arm_delay = arm_delay
        self.armed = False
        """True once the keyboard was quiet for ``arm_delay``: only then do choices count."""
        self._shown_at = float("inf")
        self._arm_timer: Timer | None = None
        self._answered = False
        # A refit after the choices were (un)stacked waits for the layout that drew them so.
        self._after_restack = AfterLayout(self, self._choices_drawn)

    @property
    def edits_rule(self) -> bool:
        """True when "always" for bash shows its rule for editing first."""
        rule = self.request.always_rule
        return self.request.tool_name == "bash" and rule is not None and len(rule) <= MAX_RULE_EDIT

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval-dialog", classes="-unarmed") as dialog:
            dialog.border_title = "Permission"
            yield Static(request_title(request), id="approval-title")
            if request.reason:
                yield Static(Content(visible(request.reason)), id="approval-reason-text")
            with Vertical(id="approval-foot"):  # docked: on screen whatever the call's size
                yield from self._compose_foot()
            if bash_command(request) is not None:
                yield _CommandView(
                    call_text(request.tool_name, request.args), id="approval-command"
                )
            else:
                # Not focusable: every focusable widget here must be a _GuardedKeys.
                with VerticalScroll(id="approval-preview", can_focus=False):
                    yield Static(request_body(request, self.preview), id="approval-body")

    def _compose_foot(self) -> ComposeResult:
        request = self.request
        yield Static("", id="approval-size")
        yield _DialogInput(placeholder="reason for a denial (optional, the model sees it)",
                           id="approval-reason", compact=True)  # fmt: skip
        if self.edits_rule:
            with Vertical(id="approval-rule-box"):
                yield Static(RULE_HINT, id="approval-rule-hint")
                rule = request.always_rule or ""
                # Typing adds to the command (a selected field would be replaced).
                yield _DialogInput(rule, id="approval-rule", compact=True, select_on_focus=False)
                yield Static("", id="approval-rule-error")
        with Horizontal(id="approval-buttons"):
            yield _button("Allow once [y]", "allow_once", "success")
            if request.always_rule is not None:
                yield _button(always_label(request), "always", "default")
            yield _button("Deny [n]", "deny", "error")
        if request.always_rule is None and request.always_refused:
            text = f"No “always” here: {visible(request.always_refused)}"
            yield Static(Content(text), id="approval-no-always")
        yield Static(UNARMED_HINT, id="approval-keys")

    def on_mount(self, event: events.Mount) -> None:
        # Keys made before this moment were typed before the dialog appeared.
        self._shown_at = event.time
        self.query_one("#allow_once", Button).focus()
        # The wait to arm starts once the dialog is on screen with the call fitted in it:
        # never armed while the call is not shown yet.
        self.call_after_refresh(self._fit_then_start_arming)

    # ------------------------------------------------------------------ the call's view

    def _fit_then_start_arming(self) -> None:
        self._fit_view()
        if not self._answered and self._arm_timer is None:
            self._arm_timer = self.set_timer(self.arm_delay, self._arm)

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self._fit_view)

    def _fit_view(self) -> None:
        """Give the call's view the rows the dialog has left once its head and its docked
        foot are drawn (the foot would cover the view's last rows otherwise), and say the
        command's size when it does not fit them (a row of the foot, taken from the view)."""
        views = self.query("#approval-command, #approval-preview")
        if not views:
            return
        view = views.first()
        dialog = self.query_one("#approval-dialog")
        if self.armed:  # a resize: the key row's width changed
            self.query_one("#approval-keys", Static).update(self._armed_hint())
        restacked = self._stack_choices()
        if restacked:  # fitted again on the foot as the layout draws it
            self._after_restack.call(self._fit_view)
        used = restacked + sum(
            widget.outer_size.height
            for widget in dialog.children
            if widget.display and widget not in views
        )
        room = int(self.size.height * 0.9) - dialog.styles.gutter.height - used - 2  # margins
        note = self.query_one("#approval-size", Static)
        if isinstance(view, _CommandView):
            room += 1 if note.display else 0  # the room without the note
            overflows = view.line_count > max(3, min(20, room))
            if overflows and not note.display:
                command = bash_command(self.request) or ""
                note.update(f"{size_note(command)} · {SCROLL_HINT}")
            note.display = overflows
            room -= 1 if overflows else 0
        view.styles.max_height = max(3, min(20, room))

    def _stack_choices(self) -> int:
        """Put the choices one under another when they do not fit one row (a narrow
        terminal, a long "always" rule: "Deny [n]" was cut off the dialog). Returns the
        rows the foot gains or loses by it, before the next layout shows them."""
        row = self.query_one("#approval-buttons")
        buttons = list(row.query(Button))
        needed = sum(b.outer_size.width + b.styles.margin.width for b in buttons)
        stacked = needed > row.size.width > 0
        if stacked == row.has_class("-stacked"):
            return 0
        row.set_class(stacked, "-stacked")
        return (len(buttons) - 1) * (1 if stacked else -1)

    def _choices_drawn(self) -> bool:
        """Whether the last layout drew the choices' row as its class says (one row, or
        one under another): until then the foot's height is the old one."""
        row = self.query_one("#approval-buttons")
        return (row.size.height > 1) == row.has_class("-stacked")

    def action_scroll(self, how: str) -> None:
        """Scroll the command (or the diff) a line, a page, or to an end."""
        views = self.query("#approval-command, #approval-preview")
        if not views:
            return
        view = views.first()
        {
            "up": view.scroll_up,
            "down": view.scroll_down,
            "page_up": view.scroll_page_up,
            "page_down": view.scroll_page_down,
            "home": view.scroll_home,
            "end": view.scroll_end,
        }[how](animate=False)

    # ------------------------------------------------------------------ arming

    def _arm(self) -> None:
        self.armed = True
        self.query_one("#approval-dialog").remove_class("-unarmed")
        self.query_one("#approval-keys", Static).update(self._armed_hint())

    def _armed_hint(self) -> str:
        """The armed key row, shortened when the row is narrower than it."""
        hint = ARMED_HINT if self.request.always_rule is not None else NO_ALWAYS_HINT
        width = self.query_one("#approval-keys").size.width
        return SHORT_HINTS[hint] if 0 < width < len(hint) else hint

    def _disarm(self) -> None:
        self.armed = False
        self.query_one("#approval-dialog").add_class("-unarmed")
        self.query_one("#approval-keys", Static).update(UNARMED_HINT)
        self._arm_timer = self.set_timer(self.arm_delay, self._arm)

    def _restart_wait(self) -> None:
        if self._arm_timer is not None:
            self._arm_timer.reset()

    def hold_keys_for_pick(self) -> None:
        """Enter is on its way to a field or a choice: an armed dialog acts on it, so the
        keys behind it wait (an unarmed one takes it as it is handed over)."""
        if self.armed and not self._answered and isinstance(self.focused, Input | Button):
            super().hold_keys_for_pick()

    def _forward_event(self, event: events.Event) -> None:
        # Keys come here when no widget of the dialog has focus.
        if isinstance(event, events.Key) and self.intercept_key(event, self):
            return
        super()._forward_event(event)

    def intercept_key(self, event: events.Key, target: Widget) -> bool:
        """Judge a key as the app hands it to ``target``; True if the dialog took it.

        Until armed (and for any key made before the dialog appeared) every key is
        taken, printable ones go on into the composer. Once armed, ``y`` ``a`` ``n`` and
        Esc answer at once, any other printable key (Space too) un-arms it again; in a
        text field the field gets its text and editing keys.
        """
        if self._answered:
            return True
        stale = event.time < self._shown_at
        if stale or not self.armed:
            if not stale:
                self._restart_wait()
            if event.is_printable and event.character:
                self._type_into_composer(event.character)
            return True
        if isinstance(target, Input) and event.key != "escape":
            return False
        handler = {
            "y": lambda: self.action_choose("allow_once"),
            "a": self.action_always,
            "n": self.action_deny_with_reason,
            "escape": self.action_cancel,
        }.get(event.key)
        if handler is not None:
            handler()
            return True
        if event.is_printable and event.character:
            # Any other letter (or Space, which would press the focused button) means
            # the user is typing prose, not answering: wait for quiet again.
            self._disarm()
            self._type_into_composer(event.character)
            return True
        return False  # Enter, Tab, arrows: the focused widget's own keys

    def _type_into_composer(self, text: str) -> None:
        """Keep type-ahead: it goes on into the composer of the screen below."""
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) > 1 and stack[-1] is self else None
        found = below.query("#composer") if below is not None else None
        composer = found.first() if found else None
        insert = getattr(composer, "insert", None)
        if callable(insert):
            insert(text)

    # ------------------------------------------------------------------ answers

    @property
    def reason_text(self) -> str:
        """What the user typed as the denial reason."""
        return self.query_one("#approval-reason", Input).value.strip()

    def action_choose(self, choice: Choice) -> None:
        """Answer and close (only once armed: a click counts no more than a key)."""
        if not self.armed:
            self._restart_wait()
            self.let_keys_go()
            return
        if choice == "always" and self.request.always_rule is None:
            self.let_keys_go()
            return  # not offered: outside the project, or a destructive command
        reason = self.reason_text if choice == "deny" else None
        self._answer(ApprovalResponse(choice, reason or None))

    def _answer(self, response: ApprovalResponse) -> None:
        """Close with ``response``; keys still arriving are taken and dropped."""
        if not self._answered:
            self._answered = True
            self.dismiss(response)

    def action_always(self) -> None:
        """``a``: for bash, show the rule to edit (Enter saves it); else answer "always"."""
        if not self.armed or not self.edits_rule:
            self.action_choose("always")
            return
        self.query_one("#approval-rule-box").display = True
        self.set_focus(self.query_one("#approval-rule", Input))  # now: the next key goes there
        self.let_keys_go()

    def action_deny_with_reason(self) -> None:
        """``n``: type a reason, Enter sends the denial (Esc sends it too)."""
        if self.armed:
            self.set_focus(self.query_one("#approval-reason", Input))  # now, not deferred

    def action_cancel(self) -> None:
        """Esc: back out of editing the rule, else deny."""
        if self.edits_rule and self.query_one("#approval-rule-box").display:
            self.query_one("#approval-rule-box").display = False
            self.set_focus(self.query_one("#always", Button))
            return
        self.action_choose("deny")

    def _save_rule(self) -> None:
        if not self.armed:
            self._restart_wait()
            self.let_keys_go()
            return
        edited = self.query_one("#approval-rule", Input).value
        command = self.request.args.get("command")
        checked = validate_rule(edited, command if isinstance(command, str) else "")
        if isinstance(checked, str):
            self.query_one("#approval-rule-error", Static).update(f"Not saved: {checked}")
            self.let_keys_go()  # the field stays: the keys typed after Enter go on there
            return
        self._answer(ApprovalResponse("always", rule=checked.label))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        choice = BUTTON_CHOICES.get(event.button.id or "")
        if choice == "always":
            self.action_always()
        elif choice is not None:
            self.action_choose(choice)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "approval-rule":
            self._save_rule()
        else:
            self.action_choose("deny")
