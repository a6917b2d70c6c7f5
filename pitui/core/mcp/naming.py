"""How MCP tools are named and matched, as pi 1.6 does it.

A server tool is ``mcp__<server>__<tool>`` with every character outside
``[A-Za-z0-9_]`` replaced by ``_``; a name longer than providers accept (64), or one
that two tools of a server share after sanitising, gets an 8-hex-digit hash suffix.
Patterns (``toolExposure`` keys, ``--tools`` and ``--exclude-tools`` entries) use ``*``
for any characters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

from pitui.lazy_pattern import lazy_pattern

MAX_TOOL_NAME_LENGTH = 64
RESOURCE_TOOLS = frozenset(
    {"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}
)
TOOL_SEARCH = "tool_search"
_UNSAFE = lazy_pattern(r"[^A-Za-z0-9_]")


def mcp_tool_name(
    server: str, tool: str, is_taken: Callable[[str], bool] = lambda _n: False
) -> str:
    """The model-facing name of ``tool`` of ``server``."""
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME_LENGTH and not is_taken(name):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME_LENGTH - len(digest) - 1]}_{digest}"


def tool_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Model-facing names of a server's tools: every tool whose sanitised name collides
    with another's gets the hash suffix (so neither depends on list order)."""
    listed = list(dict.fromkeys(tools))
    plain = [_UNSAFE.sub("_", f"mcp__{server}__{tool}") for tool in listed]
    shared = {name for name in plain if plain.count(name) > 1}
    return {tool: mcp_tool_name(server, tool, shared.__contains__) for tool in listed}


def mcp_namespace(server: str) -> str:
    """``mcp__<server>`` with ``-`` as ``_``: names differing only there clash."""
    return f"mcp__{server.replace('-', '_')}"


def server_summary(description: str | None, instructions: str | None) -> str:
    """First line of the configured description, else of the server's instructions."""
    text = (description or "").strip() or (instructions or "").strip()
    return text.split("\n", 1)[0].strip()


def is_mcp_tool_name(name: str) -> bool:
    """A server tool or a resource tool."""
    return name.startswith("mcp__") or name in RESOURCE_TOOLS


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """``*`` matches any characters; everything else is literal."""
    return re.compile("^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$")


def name_matcher(entries: Iterable[str]) -> Callable[[str], bool]:
    """Whether a tool name is one of ``entries`` (exact names or ``*`` patterns)."""
    listed = list(entries)
    exact = {entry for entry in listed if "*" not in entry}
    patterns = [pattern_regex(entry) for entry in listed if "*" in entry]
    return lambda name: name in exact or any(p.match(name) for p in patterns)


def configured_tool_exposure(overrides: dict[str, str], tool: str) -> str | None:
    """The ``toolExposure`` entry for ``tool``: an exact key wins over patterns; among
    patterns, the first match wins. None: the server's exposure applies."""
    if tool in overrides:
        return overrides[tool]
    for pattern, exposure in overrides.items():
        if "*" in pattern and pattern_regex(pattern).match(tool):
            return exposure
    return None
