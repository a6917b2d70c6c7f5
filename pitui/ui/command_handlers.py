"""The built-in slash commands (PI_SPEC §9.1), worded as pi words them.

Each handler takes the :class:`~pitui.ui.commands.Commands` controller and the argument
text; :func:`builtin_commands` lists them for the registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Types only: the message models load with the session, after the first frame.
    from pitui.ai.types import Model
    from pitui.ui.commands import Commands, SlashCommand


async def model_command(commands: Commands, arg: str) -> None:
    """``/model [search]``: an exact ``provider/id`` or id switches; else the picker."""
    session = commands.session
    model = exact_model_match(arg, session.registry.all()) if session and arg else None
    if model is not None:
        await commands.switch_model(model)
    else:
        from pitui.ui.screens.models import open_model_picker

        open_model_picker(commands, arg)


def exact_model_match(reference: str, models: list[Model]) -> Model | None:
    """pi's exact match: ``provider/id`` (case-insensitive) or an unambiguous bare id."""
    ref = reference.strip().lower()
    if not ref:
        return None
    canonical = [m for m in models if f"{m.provider}/{m.id}".lower() == ref]
    if canonical:
        return canonical[0] if len(canonical) == 1 else None
    by_id = [m for m in models if m.id.lower() == ref]
    return by_id[0] if len(by_id) == 1 else None


async def thinking_command(commands: Commands, arg: str) -> None:
    """``/thinking [level]``: set the level, or show it and the choices."""
    session = commands.require_session()
    available = session.available_thinking_levels()
    if not arg:
        choices = ", ".join(available)
        await commands.notice(f"Thinking level: {session.thinking_level} (available: {choices})")
        return
    from pitui.ai.types import THINKING_LEVELS

    level = next((lvl for lvl in THINKING_LEVELS if lvl == arg.lower()), None)
    if level is None:
        choices = ", ".join(THINKING_LEVELS)
        await commands.notice(f'Invalid thinking level "{arg}". Use one of: {choices}', "warning")
        return
    if level != "off" and available == ["off"]:
        await commands.notice("Current model does not support thinking", "warning")
        return
    await session.set_thinking_level(level)
    commands.refresh_status()
    await commands.notice(f"Thinking level: {session.thinking_level}")


def thinking_levels(commands: Commands, _arg: str) -> list[str]:
    """Argument completions for ``/thinking``."""
    from pitui.ai.types import THINKING_LEVELS

    session = commands.session
    return list(session.available_thinking_levels()) if session else list(THINKING_LEVELS)


async def new_command(commands: Commands, _arg: str) -> None:
    """``/new``: abort any run and start an empty session file."""
    session = commands.require_session()
    if session.is_streaming:
        session.abort()
        await session.wait_for_idle()
    await session.new_session()
    commands.refresh_status()
    commands.notice_after_events("✓ New session started")


async def name_command(commands: Commands, arg: str) -> None:
    """``/name [name]``: set the session name; without one show it."""
    session = commands.require_session()
    if not arg:
        current = session.session_name
        if current:
            await commands.notice(f"Session name: {current}")
        else:
            await commands.notice("Usage: /name <name>", "warning")
        return
    await session.set_name(arg)
    commands.refresh_status()
    await commands.notice(f"Session name set: {arg}")


async def copy_command(commands: Commands, _arg: str) -> None:
    """``/copy``: the last assistant text to the clipboard (OSC 52 via Textual)."""
    session = commands.require_session()
    text = session.last_assistant_text()
    if not text:
        await commands.notice("No agent messages to copy yet.", "error")
        return
    commands.app.copy_to_clipboard(text)
    await commands.notice("Copied last agent message to clipboard")


async def theme_command(commands: Commands, arg: str) -> None:
    """``/theme [name]``: switch, or pick from the discovered themes."""
    if arg:
        await commands.set_theme(arg)
    else:
        from pitui.ui.palette import open_theme_picker

        open_theme_picker(commands.app)


def theme_names(commands: Commands, _arg: str) -> list[str]:
    """Argument completions for ``/theme``."""
    return commands.theme_names()


async def hotkeys_command(commands: Commands, _arg: str) -> None:
    """``/hotkeys``: the list of every binding."""
    from pitui.paths import keybindings_file
    from pitui.ui.screens.hotkeys import HotkeysScreen

    commands.app.push_screen(HotkeysScreen(commands.keybindings, str(keybindings_file())))


async def quit_command(commands: Commands, _arg: str) -> None:
    """``/quit``: exit."""
    commands.app.exit()


def builtin_commands() -> list[SlashCommand]:
    """The commands every pitui has, in the order completion lists them."""
    from pitui.ui.commands import SlashCommand
    from pitui.ui.commands_compact import compact_command
    from pitui.ui.commands_resume import resume_command
    from pitui.ui.commands_session import session_command
    from pitui.ui.context_command import context_command
    from pitui.ui.permission_commands import permissions_command
    from pitui.ui.transfer_commands import export_command, import_command
    from pitui.ui.tree_commands import clone_command, fork_command, tree_command

    return [
        SlashCommand("model", "Select model (opens selector UI)", model_command, "[search]"),
        SlashCommand(
            "thinking", "Set thinking level", thinking_command, "[level]", thinking_levels
        ),
        SlashCommand("new", "Start a new session", new_command),
        SlashCommand("resume", "Resume a different session", resume_command),
        SlashCommand("name", "Set session display name", name_command, "[name]"),
        SlashCommand("session", "Show session info and stats", session_command),
        SlashCommand(
            "compact", "Manually compact the session context", compact_command, "[instructions]"
        ),
        SlashCommand("tree", "Navigate the session tree (switch branches)", tree_command),
        SlashCommand("fork", "Create a new fork from a previous message", fork_command),
        SlashCommand(
            "clone", "Duplicate the current session at the current position", clone_command
        ),
        SlashCommand("copy", "Copy last agent message to clipboard", copy_command),
        SlashCommand("context", "Show what the model sees on the next request", context_command),
        SlashCommand(
            "export", "Export the session to HTML (.md, .jsonl)", export_command, "[path]"
        ),
        SlashCommand(
            "import", "Import a session file and continue in it", import_command, "<file>"
        ),
        SlashCommand("theme", "Switch theme", theme_command, "[name]", theme_names),
        SlashCommand("hotkeys", "Show all keyboard shortcuts", hotkeys_command),
        SlashCommand("permissions", "List and remove remembered approvals", permissions_command),
        SlashCommand("quit", "Quit pitui", quit_command),
    ]
