"""The permission gate: before a tool runs, a policy says allow, deny or ask.

pi has no gate; users of its peers expect one. Read-only tools are allowed; mutating
tools follow the approval mode. "Ask" is an awaited request that a mode answers (the
TUI with a modal); a mode with nobody to ask never hangs: it gets a denial. A denial
becomes the tool's paired error result, so the model learns the user refused.

Paths are judged where they resolve (symlinks followed), and "always" answers are
narrow: the exact command unless the user edits it into a prefix, never for a
destructive command, never for anything outside the project (:mod:`command_rules`).
Remembered rules can be listed and removed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pitui import paths
from pitui.ai.types import ToolResultMessage
from pitui.core.command_rules import (
    CommandRule,
    never_remembered,
    proposed_rule,
    rule_applies,
    validate_rule,
)
from pitui.core.denial import DENIED_DETAIL as DENIED_DETAIL
from pitui.core.denial import was_denied as was_denied
from pitui.core.settings import ApprovalMode, ApprovalSettings
from pitui.core.tools import READ_ONLY_TOOLS
from pitui.core.tools.path_utils import is_within, resolve_to_cwd

READ_ONLY = READ_ONLY_TOOLS
FILE_MUTATING = frozenset({"edit", "write"})

Verdict = Literal["allow", "deny", "ask"]
Choice = Literal["allow_once", "always", "deny"]
RuleKind = Literal["tool", "command", "prefix"]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What the user is asked about."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    reason: str
    """Why the gate asks, e.g. ``writes outside the project``."""
    always_rule: str | None = None
    """What an "always" answer would remember, shown before it is saved: for bash the exact
    command (the user may edit it; ending it in `` *`` makes a prefix), else the tool name.
    None: "always" is not offered."""
    always_refused: str = ""
    """Why "always" is not offered (outside the project, a destructive command)."""
    outside_workspace: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalResponse:
    """The user's answer."""

    choice: Choice
    reason: str | None = None
    rule: str | None = None
    """For "always" on bash: the rule as the user edited it (None: as proposed)."""


@dataclass(frozen=True, slots=True)
class RememberedRule:
    """One remembered approval of this project, as listed and removed by the user."""

    kind: RuleKind
    value: str
    """The tool name, the exact command, or the command prefix (without `` *``)."""

    @property
    def label(self) -> str:
        """``edit (inside the project)``, ``bash: npm test``, ``bash: npm test *``."""
        if self.kind == "tool":
            return f"{self.value} (inside the project)"
        rule = CommandRule("prefix" if self.kind == "prefix" else "exact", self.value)
        return f"bash: {rule.label}"


Asker = Callable[[ApprovalRequest], Awaitable[ApprovalResponse]]
ToolRule = Callable[["PermissionPolicy", str, dict[str, Any]], "tuple[Verdict, str] | None"]
"""A verdict for tools the policy does not know (MCP tools: :mod:`pitui.core.mcp.gate`);
None leaves the call to the policy's own rules."""
Remember = Callable[[dict[str, Any]], Awaitable[None]]
"""Persists a project-settings change (an "always" answer, a removed rule)."""


@dataclass
class Decision:
    """The outcome for one tool call, kept so the UI can show a denied card."""

    allowed: bool
    message: str | None = None
    outside_ok: bool = False
    """The user (or ``--approve all``) allowed this call to write outside the project."""


def _inside(path: str, cwd: Path) -> bool:
    """True if ``path`` (as the model wrote it) resolves inside ``cwd``, symlinks followed.

    pitui's own project folder (``.pitui/``: settings and remembered approvals) counts as
    outside: a tool that could write there could widen its own permissions.
    """
    target = resolve_to_cwd(path, cwd)
    return is_within(target, str(cwd)) and not is_within(target, str(paths.project_dir(cwd)))


@dataclass
class PermissionPolicy:
    """Decides allow / deny / ask for a call from the mode and remembered approvals."""

    cwd: Path
    mode: ApprovalMode = "ask"
    allow_tools: list[str] = field(default_factory=list)
    allow_commands: list[str] = field(default_factory=list)
    allow_command_prefixes: list[str] = field(default_factory=list)
    sandbox_missing: str | None = None
    """Under ``workspace``: why bash has no OS sandbox here (None: every command runs in
    one). Then bash is not allowed outright: the TUI asks, print mode denies."""
    tool_rule: ToolRule | None = None
    """Asked first (after ``--approve all``) about every call."""

    @classmethod
    def from_settings(
        cls,
        cwd: Path,
        settings: ApprovalSettings,
        mode: ApprovalMode | None = None,
        *,
        sandbox_missing: str | None = None,
    ) -> PermissionPolicy:
        """The policy of ``settings``, with ``mode`` (e.g. ``--approve``) taking precedence."""
        return cls(
            cwd=cwd,
            mode=mode or settings.mode,
            allow_tools=list(settings.allow_tools),
            allow_commands=list(settings.allow_commands),
            allow_command_prefixes=list(settings.allow_command_prefixes),
            sandbox_missing=sandbox_missing,
        )

    def outside_workspace(self, tool_name: str, args: dict[str, Any]) -> bool:
        """True when a file-mutating call targets a path outside the session cwd.

        Blocking (resolves symlinks); the gate calls it through a thread.
        """
        path = args.get("path")
        return tool_name in FILE_MUTATING and isinstance(path, str) and not _inside(path, self.cwd)

    def verdict(self, tool_name: str, args: dict[str, Any]) -> tuple[Verdict, str]:
        """``(verdict, reason)`` for one call. Blocking (resolves paths)."""
        if tool_name in READ_ONLY or self.mode == "all":
            return "allow", ""
        if self.tool_rule is not None and (ruled := self.tool_rule(self, tool_name, args)):
            return ruled
        if self.mode == "none":
            return "deny", "mutating tools are disabled (--approve none)"
        if self.outside_workspace(tool_name, args):
            if self.mode == "workspace":
                return "deny", "writes outside the project are not allowed in this mode"
            return "ask", "writes outside the project"
        if tool_name == "bash":
            return self._bash_verdict(args.get("command"))
        if self.mode == "workspace":
            return "allow", ""
        if self.mode == "edits" and tool_name in FILE_MUTATING:
            return "allow", ""
        if tool_name in self.allow_tools:
            return "allow", ""
        return "ask", f"{tool_name} changes files" if tool_name in FILE_MUTATING else "mutating"

    def _bash_verdict(self, command: object) -> tuple[Verdict, str]:
        if self.mode == "workspace":
            # The sandbox is what keeps a command inside the project; no sandbox, no free pass.
            return ("ask", self.sandbox_missing) if self.sandbox_missing else ("allow", "")
        if not isinstance(command, str):
            return "ask", "runs a shell command"
        if "bash" in self.allow_tools and never_remembered(command) is None:
            return "allow", ""
        if any(rule_applies(rule, command, self.cwd) for rule in self.command_rules()):
            return "allow", ""
        return "ask", "runs a shell command"

    def command_rules(self) -> list[CommandRule]:
        """The remembered bash rules, exact commands first."""
        exact = [CommandRule("exact", text) for text in self.allow_commands if text.strip()]
        return exact + [CommandRule("prefix", p) for p in self.allow_command_prefixes if p.strip()]

    def always_offer(
        self, tool_name: str, args: dict[str, Any], outside: bool
    ) -> tuple[str | None, str]:
        """``(rule, why not)``: what "always" would remember for this call, or why not offered."""
        if outside:
            return None, "it reaches outside the project"
        if tool_name != "bash":
            return tool_name, ""
        command = args.get("command")
        if not isinstance(command, str):
            return None, "the command is missing"
        rule = proposed_rule(command)
        if rule is None:
            return None, f"this command is never remembered: {never_remembered(command) or 'empty'}"
        return rule.label, ""

    def remember(
        self, request: ApprovalRequest, edited: str | None = None
    ) -> dict[str, Any] | None:
        """Record an "always" answer; returns the project-settings change to persist.

        None when nothing may be remembered (the call is still allowed once).
        """
        if request.always_rule is None:
            return None
        if request.tool_name != "bash":
            if request.tool_name not in self.allow_tools:
                self.allow_tools.append(request.tool_name)
            return {"approval": {"allowTools": list(self.allow_tools)}}
        command = request.args.get("command")
        rule = validate_rule(
            edited or request.always_rule, command if isinstance(command, str) else ""
        )
        if isinstance(rule, str):
            return None
        if rule.kind == "exact":
            return self._add("allowCommands", self.allow_commands, rule.text)
        return self._add("allowCommandPrefixes", self.allow_command_prefixes, rule.text)

    @staticmethod
    def _add(key: str, values: list[str], value: str) -> dict[str, Any]:
        if value not in values:
            values.append(value)
        return {"approval": {key: list(values)}}

    def rules(self) -> list[RememberedRule]:
        """Every remembered approval: tools, exact commands, prefixes."""
        found = [RememberedRule("tool", name) for name in self.allow_tools]
        found += [RememberedRule("command", text) for text in self.allow_commands]
        return found + [RememberedRule("prefix", text) for text in self.allow_command_prefixes]

    def forget(self, rule: RememberedRule) -> dict[str, Any]:
        """Remove ``rule``; returns the project-settings change to persist."""
        key, values = {
            "tool": ("allowTools", self.allow_tools),
            "command": ("allowCommands", self.allow_commands),
            "prefix": ("allowCommandPrefixes", self.allow_command_prefixes),
        }[rule.kind]
        while rule.value in values:
            values.remove(rule.value)
        return {"approval": {key: list(values)}}


def denial_text(tool_name: str, user_reason: str | None, policy_reason: str | None) -> str:
    """The tool result the model reads when a call was refused."""
    if user_reason is not None:
        text = f"The user denied this {tool_name} call."
        return f"{text} Reason: {user_reason.strip()}" if user_reason.strip() else text
    return f"Permission denied for {tool_name}: {policy_reason or 'not allowed'}."


def mark_denied(result: ToolResultMessage) -> None:
    """Record in ``result`` that the permission gate refused its call.

    A resumed session sees only the tool result; this is how its card shows ``⊘``
    (denied) as it did live, rather than ``✗``. ``details`` is UI-only data: pi keeps it
    and never sends it to a model.
    """
    details = result.details if isinstance(result.details, dict) else {}
    result.details = {**details, DENIED_DETAIL: True}


class PermissionGate:
    """The ``before_tool_call`` hook: returns a block message, or None to let the call run."""

    def __init__(
        self, policy: PermissionPolicy, asker: Asker | None = None, remember: Remember | None = None
    ) -> None:
        self.policy = policy
        self.asker = asker
        self._remember = remember
        self.decisions: dict[str, Decision] = {}

    async def check(self, tool_call_id: str, tool_name: str, args: dict[str, Any]) -> str | None:
        """Decide one call, asking the user when the policy says so."""
        verdict, reason = await asyncio.to_thread(self.policy.verdict, tool_name, args)
        if verdict == "allow":
            self.decisions[tool_call_id] = Decision(True, outside_ok=self.policy.mode == "all")
            return None
        if verdict == "deny" or self.asker is None:
            message = denial_text(tool_name, None, reason or "nobody to approve it")
            self.decisions[tool_call_id] = Decision(False, message)
            return message
        outside = await asyncio.to_thread(self.policy.outside_workspace, tool_name, args)
        rule, refused = self.policy.always_offer(tool_name, args, outside)
        request = ApprovalRequest(tool_call_id, tool_name, args, reason, rule, refused, outside)
        response = await self.asker(request)
        if response.choice == "deny":
            message = denial_text(tool_name, response.reason or "", None)
            self.decisions[tool_call_id] = Decision(False, message)
            return message
        if response.choice == "always":
            await self.remember(request, response.rule)
        self.decisions[tool_call_id] = Decision(True, outside_ok=outside)
        return None

    async def remember(self, request: ApprovalRequest, edited: str | None = None) -> bool:
        """Save the "always" rule of ``request`` (as the user ``edited`` it); False if none."""
        change = self.policy.remember(request, edited)
        if change is None:
            return False
        await self._persist(change)
        return True

    def remembered_rules(self) -> list[RememberedRule]:
        """The approvals remembered for this project (see :meth:`PermissionPolicy.rules`)."""
        return self.policy.rules()

    async def forget(self, rule: RememberedRule) -> None:
        """Remove a remembered approval, here and in the project settings."""
        await self._persist(self.policy.forget(rule))

    async def _persist(self, change: dict[str, Any]) -> None:
        if self._remember is not None:
            await self._remember(change)

    async def confirm_write(self, tool_call_id: str, path: str) -> str | None:
        """Check again, just before ``write``/``edit`` touch ``path`` (absolute), where it leads.

        The gate decided on the path as it resolved then; a symlink made since (by a
        ``bash`` call running in parallel, say) could point it elsewhere. A call allowed
        only because it stayed inside the project must still stay inside. Returns the
        refusal text, or None.
        """
        decision = self.decisions.get(tool_call_id)
        if self.policy.mode == "all" or (decision is not None and decision.outside_ok):
            return None
        if await asyncio.to_thread(_inside, path, self.policy.cwd):
            return None
        return (
            f"Permission denied: {path} resolves outside the project "
            "(a symlink changed since the call was allowed)."
        )
