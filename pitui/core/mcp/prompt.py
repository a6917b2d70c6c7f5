"""The ``mcp_servers`` section of the system prompt (pi 1.6's wording and limits).

It lists the servers whose tools are not declared to the model (``deferred``; pitui has
no codemode, so every listed server is reached through ``tool_search``), each with a
one-line summary: its configured description, else the first line of its instructions.
The section stays within 4096 characters: summaries shrink first (250 at most each),
then the last servers are left out and counted.
"""

from __future__ import annotations

MAX_SECTION_CHARS = 4096
MAX_SUMMARY_CHARS = 250
INTRO = (
    "MCP servers whose tools are not declared to you."
    " Load the tools of `tool_search` servers with `tool_search`."
)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return "" if limit <= 1 else text[: limit - 1].rstrip() + "…"


def servers_section(servers: list[tuple[str, str]]) -> str | None:
    """The section's text for ``(namespace, summary)`` pairs; None when empty."""
    listed = sorted(servers)
    if not listed:
        return None
    heads = [f"- {namespace} (tool_search)" for namespace, _ in listed]

    def omitted(count: int) -> list[str]:
        if count <= 0:
            return []
        plural = "" if count == 1 else "s"
        return [f"- … {count} more server{plural}; find their tools with tool_search"]

    def size(kept: int) -> int:
        return len("\n".join([INTRO, *heads[:kept], *omitted(len(listed) - kept)]))

    kept = len(listed)
    while kept > 0 and size(kept) > MAX_SECTION_CHARS:
        kept -= 1
    room = 0 if kept == 0 else min(MAX_SUMMARY_CHARS, (MAX_SECTION_CHARS - size(kept)) // kept - 2)
    lines = []
    for head, (_, summary) in zip(heads[:kept], listed[:kept], strict=True):
        short = _cut(summary, room) if room > 0 else ""
        lines.append(f"{head}: {short}" if short else head)
    return "\n".join([INTRO, *lines, *omitted(len(listed) - kept)])
