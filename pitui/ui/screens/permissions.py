"""``/permissions``: the approvals remembered for this project, and a key to remove one.

Each row is one rule as the gate applies it (``bash: npm test``, ``bash: npm test *``,
``edit (inside the project)``; a rule of the user's own settings says it applies to every
project); Delete (or ``d``) removes the selected one from where it is kept (this
project's approvals in the pitui home, or the user's settings.json) at once, Esc closes.
The policy in force heads the list; the file the project's rules live in ends it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pitui import paths
from pitui.core.permissions import PermissionGate, RememberedRule
from pitui.core.sanitize import inert

EMPTY = "No remembered approvals for this project."
HINT = "↑/↓ select · Delete or d remove · Esc close"


def policy_line(gate: PermissionGate) -> str:
    """``Policy: ask`` plus, under workspace without a sandbox, why bash asks."""
    policy = gate.policy
    line = f"Policy: {policy.mode}"
    if policy.mode == "workspace":
        line += " — bash " + ("asks: no sandbox here" if policy.sandbox_missing else "sandboxed")
    return line


def stored_line(gate: PermissionGate) -> str:
    """Where this project's "always" answers are kept (never inside the project)."""
    return f"Kept in {inert(str(paths.project_approvals_file(gate.policy.cwd)))}"


class PermissionsScreen(ModalScreen[None]):
    """Lists :meth:`PermissionGate.remembered_rules`; removes the selected one on Delete."""

    CSS_PATH = "permissions.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete,d,backspace", "remove", "remove", id="permissions.remove"),
        Binding("escape,q", "close", "close", show=False, id="permissions.close"),
    ]

    def __init__(self, gate: PermissionGate) -> None:
        super().__init__()
        self.gate = gate
        self._rules: list[RememberedRule] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="permissions"):
            yield Static("Remembered approvals", id="permissions-title")
            yield Static(Content(policy_line(self.gate)), id="permissions-policy")
            yield OptionList(id="permissions-list")
            yield Static(Content(stored_line(self.gate)), id="permissions-stored")
            yield Static(HINT, id="permissions-hint")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self, highlight: int = 0) -> None:
        self._rules = self.gate.remembered_rules()
        options = self.query_one(OptionList)
        options.clear_options()
        if not self._rules:
            options.add_option(Option(EMPTY, id="empty", disabled=True))
            return
        options.add_options(Option(Content(inert(rule.label))) for rule in self._rules)
        options.highlighted = min(highlight, len(self._rules) - 1)

    async def action_remove(self) -> None:
        """Forget the highlighted rule (here and where it is kept)."""
        index = self.query_one(OptionList).highlighted
        if index is None or not self._rules or index >= len(self._rules):
            return
        await self.gate.forget(self._rules[index])
        self._fill(index)

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
