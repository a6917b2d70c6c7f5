"""The permission gate: before a tool runs, a policy says allow, deny or ask.

pi has no gate; users of its peers expect one. Read-only tools are allowed; mutating
tools follow the approval mode. "Ask" is an awaited request that a mode answers (the
TUI with a modal); a mode with nobody to ask never hangs: it gets a denial. A denial
becomes the tool's paired error result, so the model learns the user refused.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pitui import paths
from pitui.core.settings import ApprovalMode, ApprovalSettings
from pitui.core.tools.path_utils import is_within, resolve_to_cwd

READ_ONLY = frozenset({"read", "grep", "find", "ls"})
FILE_MUTATING = frozenset({"edit", "write"})
# A command with any of these is not "just" its prefix: never auto-allow it by prefix.
_SHELL_CONTROL = re.compile(r"[;&|`<>\n]|\$\(")

Verdict = Literal["allow", "deny", "ask"]
Choice = Literal["allow_once", "always", "deny"]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What the user is asked about."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    reason: str
    """Why the gate asks, e.g. ``writes outside the project``."""
    command_prefix: str | None = None
    """For bash: the prefix an "always" answer would remember."""
    outside_workspace: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalResponse:
    """The user's answer."""

    choice: Choice
    reason: str | None = None


Asker = Callable[[ApprovalRequest], Awaitable[ApprovalResponse]]
Remember = Callable[[dict[str, Any]], Awaitable[None]]
"""Persists a project-settings change (an "always" answer)."""


@dataclass
class Decision:
    """The outcome for one tool call, kept so the UI can show a denied card."""

    allowed: bool
    message: str | None = None
    outside_ok: bool = False
    """The user (or ``--approve all``) allowed this call to write outside the project."""


def command_prefix(command: str) -> str:
    """The prefix an "always allow" remembers: the first two words (``npm test``)."""
    words = command.strip().split()
    return " ".join(words[:2])


def _matches_prefix(command: str, prefixes: list[str]) -> bool:
    text = command.strip()
    if _SHELL_CONTROL.search(text):
        return False
    return any(text == p or text.startswith(p + " ") for p in prefixes if p)


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
    allow_command_prefixes: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(
        cls, cwd: Path, settings: ApprovalSettings, mode: ApprovalMode | None = None
    ) -> PermissionPolicy:
        """The policy of ``settings``, with ``mode`` (e.g. ``--approve``) taking precedence."""
        return cls(
            cwd=cwd,
            mode=mode or settings.mode,
            allow_tools=list(settings.allow_tools),
            allow_command_prefixes=list(settings.allow_command_prefixes),
        )

    def outside_workspace(self, tool_name: str, args: dict[str, Any]) -> bool:
        """True when a file-mutating call targets a path outside the session cwd.

        Blocking (resolves symlinks); the gate calls it through a thread.
        """
        path = args.get("path")
        return tool_name in FILE_MUTATING and isinstance(path, str) and not _inside(path, self.cwd)

    def verdict(self, tool_name: str, args: dict[str, Any]) -> tuple[Verdict, str]:
        """``(verdict, reason)`` for one call."""
        if tool_name in READ_ONLY or self.mode == "all":
            return "allow", ""
        if self.mode == "none":
            return "deny", "mutating tools are disabled (--approve none)"
        if self.outside_workspace(tool_name, args):
            if self.mode == "workspace":
                return "deny", "writes outside the project are not allowed in this mode"
            return "ask", "writes outside the project"
        if self.mode == "workspace":
            return "allow", ""
        if self.mode == "edits" and tool_name in FILE_MUTATING:
            return "allow", ""
        if tool_name in self.allow_tools:
            return "allow", ""
        command = args.get("command")
        if tool_name == "bash" and isinstance(command, str):
            if _matches_prefix(command, self.allow_command_prefixes):
                return "allow", ""
            return "ask", "runs a shell command"
        return "ask", f"{tool_name} changes files" if tool_name in FILE_MUTATING else "mutating"

    def remember(self, request: ApprovalRequest) -> dict[str, Any]:
        """Record an "always" answer; returns the project-settings change to persist."""
        if request.tool_name == "bash" and request.command_prefix:
            if request.command_prefix not in self.allow_command_prefixes:
                self.allow_command_prefixes.append(request.command_prefix)
            return {"approval": {"allowCommandPrefixes": list(self.allow_command_prefixes)}}
        if request.tool_name not in self.allow_tools:
            self.allow_tools.append(request.tool_name)
        return {"approval": {"allowTools": list(self.allow_tools)}}


def denial_text(tool_name: str, user_reason: str | None, policy_reason: str | None) -> str:
    """The tool result the model reads when a call was refused."""
    if user_reason is not None:
        text = f"The user denied this {tool_name} call."
        return f"{text} Reason: {user_reason.strip()}" if user_reason.strip() else text
    return f"Permission denied for {tool_name}: {policy_reason or 'not allowed'}."


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
        request = ApprovalRequest(
            tool_call_id,
            tool_name,
            args,
            reason,
            command_prefix(args["command"]) if isinstance(args.get("command"), str) else None,
            outside,
        )
        response = await self.asker(request)
        if response.choice == "deny":
            message = denial_text(tool_name, response.reason or "", None)
            self.decisions[tool_call_id] = Decision(False, message)
            return message
        if response.choice == "always" and not request.outside_workspace:
            change = self.policy.remember(request)
            if self._remember is not None:
                await self._remember(change)
        self.decisions[tool_call_id] = Decision(True, outside_ok=outside)
        return None

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
