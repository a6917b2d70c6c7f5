"""Slash commands typed in the composer: parse, run, complete.

Dispatch looks the name up in the action table (:data:`~pitui.ui.commands.actions.BY_SLASH`),
never branches on it; unknown names and :class:`~pitui.errors.PituiError` become notices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.core.fuzzy import fuzzy_filter
from pitui.ui.commands.actions import ACTIONS, BY_SLASH, Action

if TYPE_CHECKING:
    from pitui.ui.host import UiHost
    from pitui.ui.widgets.suggestions import Suggestion


def split_command(text: str) -> tuple[str, str] | None:
    """``"/name arg text"`` → ``("name", "arg text")``; None when it is not a command.

    A path such as ``/usr/bin/env is broken`` is a prompt, not a command.
    """
    text = text.strip()
    if not text.startswith("/") or len(text) < 2:
        return None
    name, _, arg = text[1:].partition(" ")
    if not name or "/" in name or "\n" in name:
        return None
    return name, arg.strip()


def is_command(text: str) -> bool:
    """Whether submitting ``text`` runs a command (or reports an unknown one)."""
    return split_command(text) is not None


def slash_commands() -> list[Action]:
    """The actions with a slash command, in the table's order."""
    return [a for a in ACTIONS if a.slash]


def run(host: UiHost, text: str) -> None:
    """Dispatch ``text`` in a worker (handlers may wait for the session)."""
    host.run_worker(dispatch(host, text), group="commands", exit_on_error=False)


async def dispatch(host: UiHost, text: str) -> None:
    """Run the command ``text`` names; unknown names and errors become notices."""
    parsed = split_command(text)
    if parsed is None:
        return
    name, arg = parsed
    action = BY_SLASH.get(name)
    if action is None or action.handler is None:
        await host.notice(f"Unknown command: /{name}", "warning")
        return
    await host.guarded(action.handler(host, arg))


def complete(host: UiHost, text: str) -> list[Suggestion]:
    """Suggestions for the composer text: command names, then arguments (as pi)."""
    from pitui.ui.widgets.suggestions import Suggestion  # loaded with the list it fills

    if not text.startswith("/") or "\n" in text:
        return []
    name, space, arg = text[1:].partition(" ")
    if not space:
        commands = fuzzy_filter(slash_commands(), name, lambda a: a.slash or "")
        return [
            Suggestion(f"/{a.slash} ", f"/{a.slash} {a.arg_hint}".rstrip(), a.command_text)
            for a in commands
        ]
    action = BY_SLASH.get(name)
    if action is None or action.complete_args is None:
        return []
    return [
        Suggestion(f"/{name} {value}", value)
        for value in fuzzy_filter(action.complete_args(host, arg), arg.strip(), str)
    ]
