"""The approval modal: may this tool call run?

Keyboard first: ``y`` allow once, ``a`` always (for this project), ``n`` deny (focuses the
reason field; Enter there sends the denial with the reason), Enter presses the focused
choice, Esc denies (with whatever reason was typed). It shows the tool, its arguments,
why the gate asks, and for edit / write the diff against the file as it is now.
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static
from textual.widgets.button import ButtonVariant

from pitui.core.permissions import ApprovalRequest, ApprovalResponse, Choice
from pitui.core.sanitize import inert
from pitui.ui.approval_preview import ApprovalPreview
from pitui.ui.view.state import ToolCardItem
from pitui.ui.widgets.tool_renderers import render_diff, renderer_for

MAX_ARG_CHARS = 4000
BUTTON_CHOICES: dict[str, Choice] = {"allow_once": "allow_once", "always": "always", "deny": "deny"}


def request_title(request: ApprovalRequest) -> Content:
    """``Allow edit src/config.ts?`` with the tool card's own header."""
    card = ToolCardItem("approval", request.tool_call_id, request.tool_name, request.args)
    header = renderer_for(request.tool_name).header(card)
    return Content.assemble(("Allow ", "bold"), header, ("?", "bold"))


def request_body(request: ApprovalRequest, preview: ApprovalPreview | None) -> Content:
    """The diff for edit / write, the command for bash, else the arguments as JSON."""
    if preview is not None:
        if preview.problem:
            return Content.styled(inert(preview.problem), "$pi-error")
        label = "new file" if preview.new_file else "diff"
        return Content.assemble((f"{label}\n", "$pi-muted"), render_diff(preview.diff))
    command = request.args.get("command")
    if request.tool_name == "bash" and isinstance(command, str):
        return Content.styled(f"$ {inert(command)}", "$pi-bashMode")
    text = json.dumps(request.args, indent=2, ensure_ascii=False)
    if len(text) > MAX_ARG_CHARS:
        text = text[:MAX_ARG_CHARS] + "\n…"
    return Content.styled(inert(text), "$pi-toolOutput")


def always_label(request: ApprovalRequest) -> str:
    """What "always" would remember."""
    if request.tool_name == "bash" and request.command_prefix:
        return f"Always allow `{inert(request.command_prefix)}` here [a]"
    return f"Always allow {request.tool_name} here [a]"


def _button(label: str, choice: str, variant: ButtonVariant) -> Button:
    # Content, not markup: "[y]" is a key hint, not a style tag.
    return Button(Content(label), id=choice, variant=variant, compact=True)


class ApprovalScreen(ModalScreen[ApprovalResponse | None]):
    """Asks the user about one :class:`ApprovalRequest`; dismisses with the answer."""

    CSS_PATH = "approval.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose('allow_once')", "allow once", id="approval.allow_once"),
        Binding("a", "choose('always')", "always", id="approval.always"),
        Binding("n", "deny_with_reason", "deny", id="approval.deny"),
        Binding("escape", "choose('deny')", "deny", id="approval.cancel"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(self, request: ApprovalRequest, preview: ApprovalPreview | None) -> None:
        super().__init__()
        self.request = request
        self.preview = preview

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval-dialog") as dialog:
            dialog.border_title = "Permission"
            yield Static(request_title(request), id="approval-title")
            if request.reason:
                yield Static(Content(inert(request.reason)), id="approval-reason-text")
            with VerticalScroll(id="approval-preview"):
                yield Static(request_body(request, self.preview), id="approval-body")
            yield Input(placeholder="reason for a denial (optional, the model sees it)",
                        id="approval-reason", compact=True)  # fmt: skip
            with Horizontal(id="approval-buttons"):
                yield _button("Allow once [y]", "allow_once", "success")
                if not request.outside_workspace:
                    yield _button(always_label(request), "always", "default")
                yield _button("Deny [n]", "deny", "error")

    def on_mount(self) -> None:
        self.query_one("#allow_once", Button).focus()

    @property
    def reason_text(self) -> str:
        """What the user typed as the denial reason."""
        return self.query_one("#approval-reason", Input).value.strip()

    def action_choose(self, choice: Choice) -> None:
        """Answer and close."""
        if choice == "always" and self.request.outside_workspace:
            return  # the gate never remembers writes outside the project
        reason = self.reason_text if choice == "deny" else None
        self.dismiss(ApprovalResponse(choice, reason or None))

    def action_deny_with_reason(self) -> None:
        """``n``: type a reason, Enter sends the denial (Esc sends it too)."""
        self.query_one("#approval-reason", Input).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        choice = BUTTON_CHOICES.get(event.button.id or "")
        if choice is not None:
            self.action_choose(choice)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose("deny")
