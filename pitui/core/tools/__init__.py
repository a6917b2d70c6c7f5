"""pi's built-in coding tools: read, bash, edit, write (on by default), grep, find, ls.

Every tool takes the session cwd in its constructor. What a tool returns as
``content`` reaches the model; ``details`` (a pi-shaped JSON dict) is for the UI only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pitui.agent.tool import AgentTool
from pitui.core.sandbox import Sandbox
from pitui.core.tools._common import PathCheck
from pitui.core.tools.bash import BashDetails, BashError, BashParams, BashTool
from pitui.core.tools.edit import EditDetails, EditItem, EditParams, EditTool
from pitui.core.tools.find import FindDetails, FindParams, FindTool
from pitui.core.tools.grep import GrepDetails, GrepParams, GrepTool
from pitui.core.tools.ls import LsDetails, LsParams, LsTool
from pitui.core.tools.read import ReadDetails, ReadParams, ReadTool
from pitui.core.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult
from pitui.core.tools.write import WriteParams, WriteTool

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
) -> dict[str, Callable[[], AgentTool]]:
    def bash() -> AgentTool:
        return BashTool(cwd, shell_path=shell_path, command_prefix=command_prefix, sandbox=sandbox)

    return {
        "read": lambda: ReadTool(cwd),
        "bash": bash,
        "edit": lambda: EditTool(cwd, check_path=check_path),
        "write": lambda: WriteTool(cwd, check_path=check_path),
        "grep": lambda: GrepTool(cwd),
        "find": lambda: FindTool(cwd),
        "ls": lambda: LsTool(cwd),
    }


def create_tools(
    cwd: Path,
    names: Sequence[str] | None = None,
    *,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    check_path: PathCheck | None = None,
    sandbox: Sandbox | None = None,
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

    Raises:
        ValueError: A name is not a built-in tool.
    """
    builders = _builders(Path(cwd), shell_path, command_prefix, check_path, sandbox)
    wanted = DEFAULT_TOOL_NAMES if names is None else tuple(names)
    unknown = [name for name in wanted if name not in builders]
    if unknown:
        raise ValueError(
            f"Unknown tool: {', '.join(unknown)}. Available: {', '.join(ALL_TOOL_NAMES)}"
        )
    return [builders[name]() for name in dict.fromkeys(wanted)]


__all__ = [
    "ALL_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "READ_ONLY_TOOLS",
    "BashDetails",
    "BashError",
    "BashParams",
    "BashTool",
    "EditDetails",
    "EditItem",
    "EditParams",
    "EditTool",
    "FindDetails",
    "FindParams",
    "FindTool",
    "GrepDetails",
    "GrepParams",
    "GrepTool",
    "LsDetails",
    "LsParams",
    "LsTool",
    "ReadDetails",
    "ReadParams",
    "ReadTool",
    "TruncationResult",
    "WriteParams",
    "WriteTool",
    "create_tools",
]
