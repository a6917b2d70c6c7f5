"""The permission gate: before a tool runs, a policy says allow, deny or ask.

pi has no gate; users of its peers expect one. Read-only tools are allowed; mutating
tools follow the approval mode. "Ask" is an awaited request that a mode answers (the
TUI with a modal); a mode with nobody to ask never hangs: it gets a denial. A denial
becomes the tool's paired error result, so the model learns the user refused.

Paths are judged where they resolve (symlinks followed), and "always" answers are
narrow: the exact command unless the user edits it into a prefix, never for a
destructive command, never for anything outside the project (:mod:`command_rules`).
Remembered rules come from the user alone: "always" answers are kept per project in the
pitui home (:mod:`approval_store`), plus any rule in the user's own settings, which
applies to every project. A project's ``.pitui/settings.json`` holds none (see
:func:`pitui.core.settings.confine_project`). Rules can be listed and removed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import msgspec

from pitui import paths
from pitui.ai.types import ToolResultMessage
from pitui.core.approval_store import ApprovalRules, RuleListKey
from pitui.core.command_rules import (
    CommandRule,
    git_writes,
    never_remembered,
    proposed_rule,
    rule_applies,
    tool_rule_applies,
    validate_rule,
)
from pitui.core.denial import DENIED_DETAIL as DENIED_DETAIL
from pitui.core.denial import was_denied as was_denied
from pitui.core.sandbox_protected import in_git_dir
from pitui.core.settings import ApprovalMode, ApprovalSettings
from pitui.core.tools import READ_ONLY_TOOLS
from pitui.core.tools._common import WriteGrant
from pitui.core.tools.path_utils import is_within, real_path, resolve_to_cwd

READ_ONLY = READ_ONLY_TOOLS
FILE_MUTATING = frozenset({"edit", "write"})

GIT_WRITE_REASON = (
    "writes the repository (.git is read-only in the sandbox): if allowed, it runs with "
    ".git writable but its hooks, config and info/ still read-only"
)
"""Why the gate asks about a plain git command under ``workspace``; print mode, with
nobody to ask, refuses it (the user runs it: ``!git commit …``)."""
GIT_FILE_REASON = (
    "writes where git finds code to run (a .git, hooks, a bare repository's HEAD or "
    "config): your next git command there would run what is written"
)
"""Why ``write``/``edit`` of such a path asks even under ``workspace`` and ``edits``:
the bash sandbox keeps those read-only, and the file tools must not be the way round."""
Verdict = Literal["allow", "deny", "ask"]
Choice = Literal["allow_once", "always", "deny"]
RuleKind = Literal["tool", "command", "prefix"]
RuleScope = Literal["project", "user"]
"""Where a rule lives: this project's store in the pitui home, or the user's settings."""
_KEYS: dict[RuleKind, RuleListKey] = {
    "tool": "allowTools",
    "command": "allowCommands",
    "prefix": "allowCommandPrefixes",
}


class ApprovalRequest(msgspec.Struct, frozen=True):
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


class ApprovalResponse(msgspec.Struct, frozen=True):
    """The user's answer."""

    choice: Choice
    reason: str | None = None
    rule: str | None = None
    """For "always" on bash: the rule as the user edited it (None: as proposed)."""


class RememberedRule(msgspec.Struct, frozen=True):
    """One remembered approval, as listed and removed by the user."""

    kind: RuleKind
    value: str
    """The tool name, the exact command, or the command prefix (without `` *``)."""
    scope: RuleScope = "project"

    @property
    def label(self) -> str:
        """``edit (inside the project)``, ``bash: npm test``, ``bash: npm test *``; a rule
        of the user's settings ends in ``(every project: settings.json)``."""
        if self.kind == "tool":
            text = f"{self.value} (inside the project)"
        else:
            rule = CommandRule("prefix" if self.kind == "prefix" else "exact", self.value)
            text = f"bash: {rule.label}"
        return text + " (every project: settings.json)" if self.scope == "user" else text


class RuleChange(msgspec.Struct, frozen=True):
    """One list of remembered rules to persist after an "always" answer or a removal."""

    scope: RuleScope
    key: RuleListKey
    values: list[str]


Asker = Callable[[ApprovalRequest], Awaitable[ApprovalResponse]]
ToolRule = Callable[["PermissionPolicy", str, dict[str, Any]], "tuple[Verdict, str] | None"]
"""A verdict for tools the policy does not know (MCP tools: :mod:`pitui.core.mcp.gate`);
None leaves the call to the policy's own rules."""
Remember = Callable[[RuleChange], Awaitable[None]]
"""Persists a rule change: to the project's store in the pitui home, or the user's settings."""


class Decision(msgspec.Struct):
    """The outcome for one tool call, kept so the UI can show a denied card."""

    allowed: bool
    message: str | None = None
    outside_ok: bool = False
    """The user (or ``--approve all``) allowed this call to write outside the project."""
    git_ok: bool = False
    """The user allowed this git command to write the repository (``.git``)."""


def _inside(path: str, cwd: Path) -> bool:
    """True if ``path`` (as the model wrote it) resolves inside ``cwd``, symlinks followed.

    pitui's own project folder (``.pitui/``: settings and remembered approvals) counts as
    outside: a tool that could write there could widen its own permissions.
    """
    target = resolve_to_cwd(path, cwd)
    return is_within(target, str(cwd)) and not is_within(target, str(paths.project_dir(cwd)))


class PermissionPolicy(msgspec.Struct):
    """Decides allow / deny / ask for a call from the mode and remembered approvals."""

    cwd: Path
    mode: ApprovalMode = "ask"
    allow_tools: list[str] = msgspec.field(default_factory=list)
    allow_commands: list[str] = msgspec.field(default_factory=list)
    allow_command_prefixes: list[str] = msgspec.field(default_factory=list)
    sandbox_missing: str | None = None
    """Under ``workspace``: why bash has no OS sandbox here (None: every command runs in
    one). Then bash is not allowed outright: the TUI asks, print mode denies."""
    user: ApprovalRules = msgspec.field(default_factory=ApprovalRules)
    """Rules of the user's own settings: they apply to every project. The three lists
    above are this project's ("always" answers, kept in the pitui home)."""
    tool_rule: ToolRule | None = None
    """Asked first (after ``--approve all``) about every call."""

    @classmethod
    def from_settings(
        cls,
        cwd: Path,
        settings: ApprovalSettings,
        mode: ApprovalMode | None = None,
        *,
        stored: ApprovalRules | None = None,
        sandbox_missing: str | None = None,
    ) -> PermissionPolicy:
        """The policy of the user's ``settings`` and this project's ``stored`` rules, with
        ``mode`` (e.g. ``--approve``) taking precedence."""
        mine = stored or ApprovalRules()
        user = ApprovalRules(
            list(settings.allow_tools),
            list(settings.allow_commands),
            list(settings.allow_command_prefixes),
        )
        return cls(
            cwd=cwd,
            mode=mode or settings.mode,
            allow_tools=list(mine.tools),
            allow_commands=list(mine.commands),
            allow_command_prefixes=list(mine.prefixes),
            sandbox_missing=sandbox_missing,
            user=user,
        )

    def outside_workspace(self, tool_name: str, args: dict[str, Any]) -> bool:
        """True when a file-mutating call targets a path outside the session cwd.

        Blocking (resolves symlinks); the gate calls it through a thread.
        """
        path = args.get("path")
        return tool_name in FILE_MUTATING and isinstance(path, str) and not _inside(path, self.cwd)

    def writes_git(self, tool_name: str, args: dict[str, Any]) -> bool:
        """True when a file-mutating call targets a path git runs code from (blocking)."""
        path = args.get("path")
        if tool_name not in FILE_MUTATING or not isinstance(path, str):
            return False
        try:
            target = real_path(resolve_to_cwd(path, self.cwd))
            return in_git_dir(target, real_path(str(self.cwd)))
        except OSError:
            return True  # cannot tell: ask

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
        if self.writes_git(tool_name, args):
            return "ask", GIT_FILE_REASON
        if self.mode == "workspace":
            return "allow", ""
        if self.mode == "edits" and tool_name in FILE_MUTATING:
            return "allow", ""
        if tool_name in self.allow_tools or tool_name in self.user.tools:
            return "allow", ""
        return "ask", f"{tool_name} changes files" if tool_name in FILE_MUTATING else "mutating"

    def _bash_verdict(self, command: object) -> tuple[Verdict, str]:
        if self.mode == "workspace":
            # The sandbox is what keeps a command inside the project; no sandbox, no free pass.
            if self.sandbox_missing:
                return "ask", self.sandbox_missing
            if isinstance(command, str) and git_writes(command):
                return "ask", GIT_WRITE_REASON
            return "allow", ""
        if not isinstance(command, str):
            return "ask", "runs a shell command"
        if "bash" in self.allow_tools + self.user.tools and tool_rule_applies(command, self.cwd):
            return "allow", ""
        if any(rule_applies(rule, command, self.cwd) for rule in self.command_rules()):
            return "allow", ""
        return "ask", "runs a shell command"

    def command_rules(self) -> list[CommandRule]:
        """The remembered bash rules (this project's and the user's), exact commands first."""
        commands = self.allow_commands + self.user.commands
        prefixes = self.allow_command_prefixes + self.user.prefixes
        exact = [CommandRule("exact", text) for text in commands if text.strip()]
        return exact + [CommandRule("prefix", p) for p in prefixes if p.strip()]

    def always_offer(
        self, tool_name: str, args: dict[str, Any], outside: bool, reason: str = ""
    ) -> tuple[str | None, str]:
        """``(rule, why not)``: what "always" would remember for this call, or why not
        offered (``reason``: why the gate asks)."""
        if outside:
            return None, "it reaches outside the project"
        if reason == GIT_FILE_REASON:
            return None, "a write where git finds code to run asks each time"
        if tool_name != "bash":
            return tool_name, ""
        command = args.get("command")
        if not isinstance(command, str):
            return None, "the command is missing"
        if self.mode == "workspace" and git_writes(command):
            return None, "a git command that writes .git asks each time (hooks run in it)"
        rule = proposed_rule(command)
        if rule is None:
            return None, f"this command is never remembered: {never_remembered(command) or 'empty'}"
        return rule.label, ""

    def remember(self, request: ApprovalRequest, edited: str | None = None) -> RuleChange | None:
        """Record an "always" answer for this project; returns the change to persist.

        None when nothing may be remembered (the call is still allowed once).
        """
        if request.always_rule is None:
            return None
        if request.tool_name != "bash":
            return self._add("allowTools", self.allow_tools, request.tool_name)
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
    def _add(key: RuleListKey, values: list[str], value: str) -> RuleChange:
        if value not in values:
            values.append(value)
        return RuleChange("project", key, list(values))

    def _lists(self, scope: RuleScope) -> ApprovalRules:
        if scope == "user":
            return self.user
        return ApprovalRules(self.allow_tools, self.allow_commands, self.allow_command_prefixes)

    def rules(self) -> list[RememberedRule]:
        """Every remembered approval: this project's, then the user's settings' (tools,
        exact commands, prefixes)."""
        found: list[RememberedRule] = []
        for scope in ("project", "user"):
            lists = self._lists(scope)
            for kind, key in _KEYS.items():
                found += [RememberedRule(kind, value, scope) for value in lists.by_key(key)]
        return found

    def forget(self, rule: RememberedRule) -> RuleChange:
        """Remove ``rule``; returns the change to persist where it lives."""
        key = _KEYS[rule.kind]
        values = self._lists(rule.scope).by_key(key)
        while rule.value in values:
            values.remove(rule.value)
        return RuleChange(rule.scope, key, list(values))


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
        rule, refused = self.policy.always_offer(tool_name, args, outside, reason)
        request = ApprovalRequest(tool_call_id, tool_name, args, reason, rule, refused, outside)
        response = await self.asker(request)
        if response.choice == "deny":
            message = denial_text(tool_name, response.reason or "", None)
            self.decisions[tool_call_id] = Decision(False, message)
            return message
        if response.choice == "always":
            await self.remember(request, response.rule)
        git_ok = reason == GIT_WRITE_REASON
        self.decisions[tool_call_id] = Decision(True, outside_ok=outside, git_ok=git_ok)
        return None

    def git_granted(self, tool_call_id: str) -> bool:
        """True if the user allowed this call (a plain git command) to write ``.git``."""
        decision = self.decisions.get(tool_call_id)
        return decision is not None and decision.git_ok

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
        """Remove a remembered approval, here and where it is stored."""
        await self._persist(self.policy.forget(rule))

    async def _persist(self, change: RuleChange) -> None:
        if self._remember is not None:
            await self._remember(change)

    async def confirm_write(self, tool_call_id: str, path: str) -> WriteGrant:
        """Check again, just before ``write``/``edit`` touch ``path`` (absolute), where it leads.

        The gate decided on the path as it resolved then; a symlink made since (by a
        ``bash`` call running in parallel, say) could point it elsewhere. A call allowed
        only because it stayed inside the project must still stay inside: it is refused
        if it leads out now, and otherwise opened beneath the project (a link swapped in
        after this check cannot carry it out either).
        """
        decision = self.decisions.get(tool_call_id)
        if self.policy.mode == "all" or (decision is not None and decision.outside_ok):
            return WriteGrant()
        if await asyncio.to_thread(_inside, path, self.policy.cwd):
            return WriteGrant(beneath=str(self.policy.cwd))
        return WriteGrant(
            f"Permission denied: {path} resolves outside the project "
            "(a symlink changed since the call was allowed)."
        )
