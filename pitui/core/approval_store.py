"""The approvals remembered for a project, kept in the pitui home, never in the project.

An "always" answer is a permission: stored inside the project (``.pitui/settings.json``,
as pitui once did) it could be shipped by a cloned repository or planted by a command.
So it lives in ``<home>/projects/<project>/approvals.json`` (mode 0600, see
:func:`pitui.paths.project_approvals_file`), readable and writable by the user alone.

File format::

    {"version": 1, "allowTools": ["edit"], "allowCommands": ["npm test"],
     "allowCommandPrefixes": ["npm run"]}

An unreadable or malformed file counts as "nothing remembered" (everything asks again)
and is never overwritten blindly: :func:`save_rule_list` reads it again first.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

import msgspec

from pitui import paths
from pitui.private_files import write_private

VERSION = 1
RuleListKey = Literal["allowTools", "allowCommands", "allowCommandPrefixes"]
RULE_LIST_KEYS: tuple[RuleListKey, ...] = ("allowTools", "allowCommands", "allowCommandPrefixes")


class ApprovalRules(msgspec.Struct):
    """Remembered approvals: tools allowed inside the project, exact commands, prefixes."""

    tools: list[str] = msgspec.field(default_factory=list)
    commands: list[str] = msgspec.field(default_factory=list)
    prefixes: list[str] = msgspec.field(default_factory=list)

    def by_key(self, key: RuleListKey) -> list[str]:
        """The list stored under ``key`` in the file."""
        if key == "allowTools":
            return self.tools
        return self.commands if key == "allowCommands" else self.prefixes


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _read_file(path: Path) -> dict[str, Any] | None:
    """The file's object; None if absent; raises ValueError if it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must contain a JSON object")
    return data


def read_approvals(cwd: Path) -> tuple[ApprovalRules, str | None]:
    """The rules remembered for ``cwd`` and the problem reading them (blocking)."""
    try:
        data = _read_file(paths.project_approvals_file(cwd)) or {}
    except ValueError as exc:
        return ApprovalRules(), str(exc)
    rules = ApprovalRules(*(_strings(data.get(key)) for key in RULE_LIST_KEYS))
    return rules, None


async def load_approvals(cwd: Path) -> tuple[ApprovalRules, str | None]:
    """:func:`read_approvals` off the event loop."""
    return await asyncio.to_thread(read_approvals, cwd)


def _save_now(cwd: Path, key: RuleListKey, values: list[str]) -> str | None:
    path = paths.project_approvals_file(cwd)
    try:
        current = _read_file(path) or {}
    except ValueError as exc:
        return str(exc)
    current.update({"version": VERSION, key: list(values)})
    try:
        write_private(path, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        return f"{path}: cannot be written: {exc.strerror}"
    return None


async def save_rule_list(cwd: Path, key: RuleListKey, values: list[str]) -> str | None:
    """Replace one list of ``cwd``'s remembered rules; returns the problem, or None."""
    return await asyncio.to_thread(_save_now, cwd, key, values)
