"""pi's built-in coding tools: read, bash, edit, write (on by default), grep, find, ls.

Every tool takes the session cwd in its constructor. What a tool returns as ``content``
reaches the model; ``details`` (a pi-shaped JSON dict) is for the UI only. Each tool has
its own module (``pitui.core.tools.bash`` …), imported only when :func:`create_tools`
builds the tool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the package stays light: path_utils users need none of this
    from pitui.agent.tool import AgentTool
    from pitui.core.sandbox import Sandbox
    from pitui.core.tools._common import PathCheck

#: Every built-in tool name, in pi's order.
ALL_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
#: The tools a session gets without ``--tools``.
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")
#: Tools that never change anything: the permission gate lets them run without asking.
READ_ONLY_TOOLS: frozenset[str] = frozenset({"read", "grep", "find", "ls"})


def _builders(
    cwd: Path,
    shell_path: str | None,
    command_prefix: str | None,
    check_path: PathCheck | None,
    sandbox: Sandbox | None,
    git_grant: Callable[[str], bool] | None = None,
) -> dict[str, Callable[[], AgentTool]]:
    # Each tool's module is imported when the tool is built: a session pays only for
    # the tools it enables (grep, find and ls are off by default).
    def read() -> AgentTool:
        from pitui.core.tools.read import ReadTool

        return ReadTool(cwd)

    def bash() -> AgentTool:
        from pitui.core.tools.bash import BashTool

        return BashTool(
            cwd, shell_path=shell_path, command_prefix=command_prefix, sandbox=sandbox,
            git_grant=git_grant,
        )  # fmt: skip

    def edit() -> AgentTool:
        from pitui.core.tools.edit import EditTool

        return EditTool(cwd, check_path=check_path)

    def write() -> AgentTool:
        from pitui.core.tools.write import WriteTool

        return WriteTool(cwd, check_path=check_path)

    def grep() -> AgentTool:
        from pitui.core.tools.grep import GrepTool

        return GrepTool(cwd)

    def find() -> AgentTool:
        from pitui.core.tools.find import FindTool

        return FindTool(cwd)

    def ls() -> AgentTool:
        from pitui.core.tools.ls import LsTool

        return LsTool(cwd)

    return {
        "read": read,
        "bash": bash,
        "edit": edit,
        "write": write,
        "grep": grep,
        "find": find,
        "ls": ls,
    }


def create_tools(
    cwd: Path,
    names: Sequence[str] | None = None,
    *,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    check_path: PathCheck | None = None,
    sandbox: Sandbox | None = None,
    git_grant: Callable[[str], bool] | None = None,
) -> list[AgentTool]:
    """Build the named tools (default: read, bash, edit, write) for a session in ``cwd``.

    Args:
        cwd: The session's working directory; relative paths resolve against it.
        names: Tool names in the order wanted; ``None`` means the defaults.
        shell_path: The shell ``bash`` runs (pi's ``shellPath`` setting); default /bin/bash.
        command_prefix: Prepended to every bash command (pi's ``shellCommandPrefix``).
        check_path: Asked by ``write`` and ``edit`` just before they touch a file (the
            permission gate's symlink re-check).
        sandbox: Confines every bash command (the ``workspace`` policy).
        git_grant: Asked by ``bash`` with the call's id: may this git command write the
            repository (the user allowed it)?

    Raises:
        ValueError: A name is not a built-in tool.
    """
    builders = _builders(Path(cwd), shell_path, command_prefix, check_path, sandbox, git_grant)
    wanted = DEFAULT_TOOL_NAMES if names is None else tuple(names)
    unknown = [name for name in wanted if name not in builders]
    if unknown:
        raise ValueError(
            f"Unknown tool: {', '.join(unknown)}. Available: {', '.join(ALL_TOOL_NAMES)}"
        )
    return [builders[name]() for name in dict.fromkeys(wanted)]


__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_TOOL_NAMES",
    "READ_ONLY_TOOLS",
    "create_tools",
]
