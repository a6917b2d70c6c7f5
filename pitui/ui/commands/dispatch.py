"""Slash commands typed in the composer: parse, run, complete.

Dispatch looks the name up in the action table (:data:`~pitui.ui.commands.actions.BY_SLASH`),
never branches on it; unknown names and :class:`~pitui.errors.PituiError` become notices.
A second source is the session's: its prompt templates (``/review``) and skills
(``/skill:name``). Built-ins come first: a template never shadows one (the loader
reports it). Those commands are prompts: the session expands them when they are sent.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Coroutine
from typing import TYPE_CHECKING, Any

from pitui.core.fuzzy import fuzzy_filter
from pitui.ui.commands.actions import ACTIONS, BY_SLASH, Action
from pitui.ui.host import SessionLoading

if TYPE_CHECKING:
    from pitui.core.resources.commands import ResourceCommand
    from pitui.core.resources.loader import LoadedResources
    from pitui.ui.host import UiHost
    from pitui.ui.widgets.key_gate import KeyHold
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


def session_resources(host: UiHost) -> LoadedResources | None:
    """The connected session's skills and templates (None: no real session)."""
    live = host.live
    session = live.facade if live is not None else None
    return session.resources if session is not None else None


def session_commands(host: UiHost) -> list[ResourceCommand]:
    """The session's template and skill commands (skills as ``enableSkillCommands`` says)."""
    from pitui.core.resources.commands import resource_commands

    resources = session_resources(host)
    live = host.live
    if resources is None or live is None or live.facade is None:
        return []
    listed = live.facade.settings.enable_skill_commands
    return [
        c for c in resource_commands(resources, skill_commands=listed) if c.name not in BY_SLASH
    ]


def is_session_command(host: UiHost, text: str) -> bool:
    """Whether ``text`` runs one of the session's templates or skills (a prompt to send)."""
    from pitui.core.resources.commands import names_resource_command

    parsed = split_command(text)
    resources = session_resources(host)
    if parsed is None or parsed[0] in BY_SLASH or resources is None:
        return False
    return names_resource_command(text.strip(), resources)


_HELD: contextvars.ContextVar[list[KeyHold | None]] = contextvars.ContextVar("pitui_held")
"""The keys held since the Enter of the command being run, in a box a command that
waits for the session takes them from (:func:`run_action`): they wait with it."""


def run(host: UiHost, text: str, held: KeyHold | None = None) -> None:
    """Dispatch ``text`` in a worker (handlers may wait for the session). ``held``: the
    keys typed after its Enter, let go once the handler has taken its first step (its
    screen is pushed, or it holds them itself until its question opens); a command that
    waits for the session takes them along, to let go once it runs."""
    host.run_worker(run_holding(dispatch(host, text), held), group="commands", exit_on_error=False)


async def run_holding(command: Coroutine[Any, Any, None], held: KeyHold | None) -> None:
    """Run ``command``; let ``held`` go once it has taken its first step (unless it took
    them to wait for the session)."""
    box: list[KeyHold | None] = [held]
    context = contextvars.copy_context()
    context.run(_HELD.set, box)
    work = asyncio.create_task(command, context=context)
    try:
        try:
            await asyncio.sleep(0)  # the handler runs to its first wait
        finally:
            if box[0] is not None:
                box[0].release()
        await work
    finally:
        # A cancelled worker (the app's exit, a cancelled group) takes its command with
        # it, even when cancelled at the first step, before it waits on ``work``.
        work.cancel()


def _take_held() -> KeyHold | None:
    """The keys held since the running command's Enter, now the caller's to let go."""
    box = _HELD.get(None)
    if box is None:
        return None
    held, box[0] = box[0], None
    return held


async def dispatch(host: UiHost, text: str) -> None:
    """Run the command ``text`` names; unknown names and errors become notices."""
    parsed = split_command(text)
    if parsed is None:
        return
    name, arg = parsed
    action = BY_SLASH.get(name)
    if action is None and host.live is None and host.loading:
        # A template or a skill is known once the session has loaded its resources.
        host.prompts.wait_for_session(text, lambda: dispatch(host, text))  # a prompt
        return
    if action is None and is_session_command(host, text):
        await host.prompts.submit(text, follow_up=False)  # e.g. picked in the palette
        return
    if action is None or action.handler is None:
        await host.notice(f"Unknown command: /{name}", "warning")
        return
    await run_action(host, action, arg, text)


async def run_action(host: UiHost, action: Action, arg: str, label: str) -> None:
    """Run ``action``'s handler (a key's, a slash command's); its errors become notices.

    One that needs the session while it still loads waits for it and runs once it is up,
    after those waiting before it (``label`` names it meanwhile). The others (Esc,
    Ctrl+C, ``/hotkeys``) run at once.
    """
    handler = action.handler
    assert handler is not None

    def again() -> Awaitable[None]:
        return run_action(host, action, arg, label)

    async def attempt() -> None:
        try:
            await handler(host, arg)
        except SessionLoading:
            held = _take_held() if action.opens_screen else None  # else: to the composer
            host.prompts.wait_for_session(label, again, held)

    await host.guarded(attempt())


def complete(host: UiHost, text: str) -> list[Suggestion]:
    """Suggestions for the composer text: command names, then arguments (as pi)."""
    from pitui.ui.widgets.suggestions import Suggestion  # loaded with the list it fills

    if not text.startswith("/") or "\n" in text:
        return []
    name, space, arg = text[1:].partition(" ")
    if not space:
        rows = [(a.slash or "", a.arg_hint, a.command_text) for a in slash_commands()]
        rows += [(c.name, c.argument_hint, c.description) for c in session_commands(host)]
        return [
            Suggestion(f"/{slash} ", f"/{slash} {hint}".rstrip(), description)
            for slash, hint, description in fuzzy_filter(rows, name, lambda row: row[0])
        ]
    action = BY_SLASH.get(name)
    if action is None or action.complete_args is None:
        return []
    return [
        Suggestion(f"/{name} {value}", value)
        for value in fuzzy_filter(action.complete_args(host, arg), arg.strip(), str)
    ]
