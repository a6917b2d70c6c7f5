"""The one action table: every key action and slash command of pitui, once.

Each :class:`Action` says what it does, its default keys (pi's key ids), its slash
command, its ids in pi's keybindings files, and its handler. Everything that lists
actions is generated from :data:`ACTIONS`: the app's and the main screen's Textual
bindings (:mod:`pitui.ui.commands.keymap`), slash dispatch and completion
(:mod:`pitui.ui.commands.dispatch`), the command palette
(:mod:`pitui.ui.commands.palette`), ``/hotkeys`` (:func:`hotkey_rows`) and the
catalogue ``keybindings.json`` is parsed against (:data:`KEY_CATALOGUE`).

An action's ``id`` is its name in ``keybindings.json`` (pi 0.7x's ids where pi has the
action); ``pi_ids`` are pi 1.6's namespaced ids for it. Slash-only commands (``scope``
``"slash"``) have no keys and are not bindable.

This module is imported before the first frame (the bindings are class attributes): the
handler modules it names import nothing heavy at load.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from pitui.core.keybindings import Keybindings, KeyCatalogue, display_key
from pitui.ui.commands import (
    compact,
    editor,
    inspect,
    mcp,
    model,
    resume,
    session,
    transfer,
    tree,
    view,
)
from pitui.ui.commands import theme as themes

if TYPE_CHECKING:
    from pitui.ui.host import UiHost

Handler = Callable[["UiHost", str], Awaitable[None]]
ArgumentCompleter = Callable[["UiHost", str], list[str]]
Scope = Literal["app", "screen", "editor", "slash"]
"""Where an action's keys are bound: the app, the main screen (where a screen binding
would otherwise win, e.g. Shift+Tab), the composer (which reads them itself), or nowhere
(a slash command only)."""


class Action:
    """One thing the user can do, by key, slash command or palette.

    A plain class with slots, not a dataclass: the table is built before the first frame,
    and a dataclass's generated methods cost ~2 ms of start-up for nothing used here.
    """

    __slots__ = (
        "arg_hint",
        "complete_args",
        "description",
        "handler",
        "id",
        "keys",
        "opens_screen",
        "palette",
        "pi_ids",
        "priority",
        "scope",
        "slash",
        "slash_description",
        "textual_action",
    )

    def __init__(
        self,
        id: str,
        description: str,
        handler: Handler | None = None,
        keys: tuple[str, ...] = (),
        *,
        slash: str | None = None,
        slash_description: str = "",
        arg_hint: str = "",
        complete_args: ArgumentCompleter | None = None,
        scope: Scope = "app",
        priority: bool = False,
        pi_ids: tuple[str, ...] = (),
        palette: bool = True,
        textual_action: str | None = None,
        opens_screen: bool = False,
    ) -> None:
        self.id = id
        """Its name in ``keybindings.json`` (pi 0.7x's id where pi has the action)."""
        self.description = description
        self.handler = handler
        """None for the composer's own keys (submit, new line, follow-up)."""
        self.keys = keys
        """Default keys, pi key ids."""
        self.slash = slash
        self.slash_description = slash_description
        """What completion and the palette say of ``/slash`` (pi's wording); else
        ``description``."""
        self.arg_hint = arg_hint
        self.complete_args = complete_args
        self.scope = scope
        self.priority = priority
        """The key acts before the focused widget sees it (e.g. before the next key of a
        burst reaches the composer)."""
        self.pi_ids = pi_ids
        """pi 1.6's namespaced ids for it (``app.model.select``)."""
        self.palette = palette
        self.textual_action = textual_action
        """A Textual action the key binding runs itself, where Textual looks for it (its
        palette key: with no binding to ``command_palette`` it adds one of its own)."""
        self.opens_screen = opens_screen
        """Its handler opens a screen (or focuses a pane): the keys typed after its
        slash command's Enter belong there, even when it first waits for the session."""

    def __repr__(self) -> str:
        return f"Action({self.id!r})"

    @property
    def bindable(self) -> bool:
        """Whether ``keybindings.json`` can give it keys."""
        return self.scope != "slash"

    @property
    def command_text(self) -> str:
        """What its slash command says of itself."""
        return self.slash_description or self.description


ACTIONS: tuple[Action, ...] = (
    Action("interrupt", "Abort the agent / cancel", editor.interrupt, ("escape",),
           pi_ids=("app.interrupt",)),
    Action("clear", "Clear editor (first) / exit (second)", editor.clear, ("ctrl+c",),
           priority=True, pi_ids=("app.clear",)),
    Action("exit", "Exit (when editor is empty)", editor.exit_if_empty, ("ctrl+d",),
           priority=True, pi_ids=("app.exit",)),
    Action("selectModel", "Open model selector", model.select_model, ("ctrl+l",),
           slash="model", slash_description="Select model (opens selector UI)",
           arg_hint="[search]", pi_ids=("app.model.select",), opens_screen=True),
    # pi binds Ctrl+P here; pitui's Ctrl+P is the command palette.
    Action("cycleModelForward", "Cycle models", model.cycle_forward,
           pi_ids=("app.model.cycleForward",)),
    Action("cycleModelBackward", "Cycle models backward", model.cycle_backward,
           pi_ids=("app.model.cycleBackward",)),
    # On the screen, not the app: the screen's own shift+tab (focus back) would win.
    Action("cycleThinkingLevel", "Cycle thinking level", model.cycle_thinking, ("shift+tab",),
           scope="screen", pi_ids=("app.thinking.cycle",)),
    Action("thinking", "Set thinking level", model.thinking, slash="thinking",
           arg_hint="[level]", complete_args=model.thinking_levels, scope="slash"),
    Action("newSession", "Start a new session", session.new, slash="new",
           pi_ids=("app.session.new",)),
    Action("resume", "Resume a different session", resume.resume, slash="resume",
           pi_ids=("app.session.resume",), opens_screen=True),
    Action("name", "Set session display name", session.name, slash="name",
           arg_hint="[name]", scope="slash"),
    Action("session", "Show session info and stats", session.info_panel, slash="session",
           scope="slash", opens_screen=True),
    Action("compact", "Manually compact the session context", compact.compact,
           slash="compact", arg_hint="[instructions]", scope="slash"),
    # Priority: the focus moves before the next key of a burst reaches the composer.
    Action("tree", "Show and focus the branch tree", tree.tree, ("ctrl+b",), slash="tree",
           slash_description="Navigate the session tree (switch branches)", scope="screen",
           priority=True, pi_ids=("app.session.tree",), opens_screen=True),
    Action("fork", "Fork from an earlier message", tree.fork, slash="fork",
           slash_description="Create a new fork from a previous message",
           pi_ids=("app.session.fork",), opens_screen=True),
    Action("clone", "Duplicate the current session at the current position", tree.clone,
           slash="clone", scope="slash"),
    Action("diff", "Show how the files differ from an entry's checkpoint", tree.diff,
           slash="diff", arg_hint="[entry]",
           slash_description="Show file changes between an entry and the working tree"),
    Action("rewind", "Rewind the conversation, the files or both", tree.rewind,
           slash="rewind",
           slash_description="Go back to before a message (conversation, files or both)"),
    Action("previousBranch", "Switch a message to its previous sibling branch",
           tree.previous_branch, ("alt+left",)),
    Action("nextBranch", "Switch a message to its next sibling branch", tree.next_branch,
           ("alt+right",)),
    Action("copy", "Copy last agent message to clipboard", session.copy_last, slash="copy",
           scope="slash"),
    Action("contextInspector", "Show what the model sees (context inspector)",
           inspect.context, slash="context",
           slash_description="Show what the model sees on the next request",
           opens_screen=True),
    Action("export", "Export the session to HTML (.md, .jsonl)", transfer.export,
           slash="export", arg_hint="[path]", scope="slash"),
    Action("import", "Import a session file and continue in it", transfer.import_file,
           slash="import", arg_hint="<file>", scope="slash"),
    Action("theme", "Switch theme", themes.theme, slash="theme", arg_hint="[name]",
           complete_args=themes.theme_names, scope="slash", opens_screen=True),
    Action("hotkeys", "Show all keyboard shortcuts", inspect.hotkeys, slash="hotkeys",
           opens_screen=True),
    Action("permissions", "List and remove remembered approvals", inspect.permissions,
           slash="permissions", scope="slash", opens_screen=True),
    Action("mcp", "Manage MCP servers: reconnect, enable or disable, and change exposure",
           mcp.servers, slash="mcp", arg_hint="[reconnect <server>]",
           complete_args=mcp.server_names, scope="slash", opens_screen=True),
    Action("expandTools", "Toggle tool output expansion", view.toggle_tools, ("ctrl+o",),
           pi_ids=("app.tools.expand",)),
    Action("toggleThinking", "Toggle thinking block visibility", view.toggle_thinking,
           ("ctrl+t",), pi_ids=("app.thinking.toggle",)),
    Action("dequeue", "Restore queued messages", editor.dequeue, ("alt+up",),
           pi_ids=("app.message.dequeue",)),
    Action("followUp", "Queue follow-up message", keys=("alt+enter",), scope="editor",
           pi_ids=("app.message.followUp",)),
    Action("submit", "Send message", keys=("enter",), scope="editor",
           pi_ids=("tui.input.submit",)),
    Action("newLine", "New line", keys=("shift+enter", "ctrl+j"), scope="editor",
           pi_ids=("tui.input.newLine",)),
    Action("externalEditor", "Open external editor", keys=("ctrl+g",), scope="editor",
           pi_ids=("app.editor.external",)),
    Action("pasteImage", "Paste image from clipboard", keys=("ctrl+v",), scope="editor",
           pi_ids=("app.clipboard.pasteImage",)),
    Action("commandPalette", "Open the command palette", view.command_palette, ("ctrl+p",),
           priority=True, palette=False, textual_action="command_palette"),
    Action("toggleToolPane", "Show or hide the tool pane", view.toggle_tool_pane, ("f2",),
           scope="screen"),
    Action("focusConversation", "Select items in the conversation", view.focus_conversation,
           ("ctrl+up",), scope="screen", priority=True),
    Action("searchConversation", "Find in the conversation", view.search_conversation,
           ("ctrl+f",), scope="screen", priority=True, pi_ids=("tui.altScreen.search",)),
    Action("quit", "Quit pitui", session.quit_app, ("ctrl+q",), slash="quit",
           priority=True),
)  # fmt: skip
"""Every action, in the order ``/hotkeys``, completion and the palette list them."""

BY_ID: dict[str, Action] = {a.id: a for a in ACTIONS}
BY_SLASH: dict[str, Action] = {a.slash: a for a in ACTIONS if a.slash}
KEY_CATALOGUE = KeyCatalogue(
    defaults={a.id: a.keys for a in ACTIONS if a.bindable},
    aliases={pi_id: a.id for a in ACTIONS for pi_id in a.pi_ids},
)
"""What ``keybindings.json`` may name, with pi 1.6's ids for the same actions."""

FIXED_ROWS: tuple[tuple[str, str], ...] = (
    ("/", "Slash commands"),
    ("!", "Run bash command"),
    ("!!", "Run bash command (excluded from context)"),
    ("Tab", "From the composer: select items in the conversation"),
    ("Esc Esc", "Empty editor: focus the branch tree (doubleEscapeAction)"),
)
"""Keys that are not bindings but belong on the list (as pi's ``/hotkeys`` has them)."""
CONVERSATION_ROWS: tuple[tuple[str, str], ...] = (
    ("↑ / ↓, PgUp / PgDn, Home / End", "Conversation: select an item"),
    ("Enter", "Conversation: fold or unfold the selected item"),
    ("c / C", "Conversation: copy the item / its last code block"),
    ("t", "Conversation: jump to the item's tool card"),
    ("Esc", "Conversation: back to the composer"),
)
"""The conversation selection's own keys."""
TREE_ROWS: tuple[tuple[str, str], ...] = (
    ("↑ / ↓", "Branches: move (wraps around)"),
    ("PgUp / PgDn, Home / End", "Branches: page, first, last"),
    ("← / →", "Branches: fold or previous branch point / unfold or next"),
    ("Enter", "Branches: go to the selected entry (summary of the branch left, its files)"),
    ("Shift+L", "Branches: edit the label (empty clears)"),
    ("Shift+F", "Branches: fork a new session at the selected entry"),
    ("Shift+D", "Branches: how the entry's files differ from the working tree (/diff)"),
    ("Ctrl+D / T / U / L / A", "Branches: filter default / no tools / user / labeled / all"),
    ("Ctrl+O, Shift+Ctrl+O", "Branches: next / previous filter"),
    ("typing, Backspace", "Branches: search (every word, any case)"),
    ("Esc", "Branches: clear the search, else back to the editor"),
)
"""The Branches pane's own keys (typing searches there, so they are fixed)."""


def default_keybindings() -> Keybindings:
    """Every action on its default keys (until ``keybindings.json`` is read)."""
    return Keybindings.defaults(KEY_CATALOGUE)


def keys_text(bindings: Keybindings, action_id: str, unbound: str = "unbound") -> str:
    """How an action's keys are shown (``Ctrl+L / F4``); ``unbound`` when it has none."""
    keys = bindings.keys_for(action_id)
    return " / ".join(display_key(k) for k in keys) if keys else unbound


def hotkey_rows(bindings: Keybindings) -> list[tuple[str, str, str]]:
    """``/hotkeys``: ``(keys, description, action id)`` for every bindable action, in the
    table's order, then the fixed keys."""
    rows = [
        (keys_text(bindings, a.id, "(unbound)"), a.description, a.id) for a in ACTIONS if a.bindable
    ]
    fixed = (*FIXED_ROWS, *CONVERSATION_ROWS, *TREE_ROWS)
    return rows + [(key, description, "") for key, description in fixed]
