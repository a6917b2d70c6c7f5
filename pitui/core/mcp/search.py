"""``tool_search``: find MCP tools that are not declared yet and declare them.

Deferred tools (a server's ``deferred`` exposure, or ``codemode``, which pitui reads as
``deferred``) are not in the model's tool list until a search loads them; then they
are declared from the next model call on. The result's ``details.loaded`` lists what
was loaded, which is how the transcript records it (pi's shape): the runtime reads the
branch's ``tool_search`` results back, so the tools stay declared on that branch after
resume, ``/tree`` and fork, and not on others.

Ranking follows pi's idea in a smaller form: query words in the tool's name count
three times words in its description and schema; a tool matching more of the words
ranks above one matching fewer; a query that is the tool's name ranks it first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent
from pitui.core.mcp.naming import TOOL_SEARCH
from pitui.core.mcp.tools import McpTool

DEFAULT_LIMIT = 8
DESCRIPTION = (
    "# Tool discovery\n\nSearches over deferred tool metadata and exposes matching tools "
    "for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not "
    "have been provided to you upfront, and you should use this tool (`tool_search`) to "
    "search for the required tools. For MCP tool discovery, always use `tool_search`."
)
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    }
)


def tokenize(text: str) -> list[str]:
    """Lower-case words, camelCase and snake_case split, stop words out, naive singular."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    words = re.split(r"[^0-9a-zA-Z]+", spaced.lower())
    return [_stem(w) for w in words if w and w not in _STOP]


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _schema_words(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    words = [str(schema.get("description", ""))]
    for name, prop in (schema.get("properties") or {}).items():
        words += [name, *_schema_words(prop)]
    return words


def rank(query: str, tools: Sequence[McpTool], limit: int) -> list[McpTool]:
    """The best ``limit`` matches of ``query`` among ``tools``."""
    terms = set(tokenize(query))
    if not terms:
        return []
    docs = [
        (
            tool,
            set(tokenize(tool.name)),
            tokenize(" ".join([tool.description, *_schema_words(tool.parameters_schema())])),
        )
        for tool in tools
    ]
    frequency = {t: sum(1 for _, n, d in docs if t in n or t in d) for t in terms}
    idf = {t: math.log(1 + (len(docs) - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
    exact = re.sub(r"[^a-z0-9_]", "_", query.strip().lower())
    scored: list[tuple[bool, int, float, int, McpTool]] = []
    for index, (tool, name_terms, text) in enumerate(docs):
        score, covered = 0.0, 0
        for term in terms:
            weight = (3.0 if term in name_terms else 0.0) + min(text.count(term), 3) * 0.7
            covered += weight > 0
            score += idf[term] * weight
        if score > 0:
            is_exact = tool.name.lower() == exact or tool.name.lower().endswith(f"__{exact}")
            scored.append((is_exact, covered, score, -index, tool))
    scored.sort(key=lambda item: item[:4], reverse=True)
    return [item[4] for item in scored[:limit]]


class SearchParams(BaseModel):
    query: str = Field(description="Search query for deferred tools.")
    limit: float | None = Field(
        default=None, description=f"Maximum number of tools to return. Defaults to {DEFAULT_LIMIT}."
    )


class ToolSearchTool(AgentTool):
    """Loads deferred MCP tools; ``load`` declares them (the runtime's callback)."""

    name = TOOL_SEARCH
    label = TOOL_SEARCH
    description = DESCRIPTION
    parameters = SearchParams

    def __init__(
        self,
        candidates: Callable[[], list[McpTool]],
        load: Callable[[list[str]], None],
        wait: Callable[[], Any],
    ) -> None:
        self._candidates = candidates
        self._load = load
        self._wait = wait

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        query, limit = params.query, params.limit
        if not query.strip():
            raise ToolError("query must not be empty")
        count = DEFAULT_LIMIT if limit is None else limit
        if count != int(count) or count <= 0:
            raise ToolError("limit must be a positive integer")
        await self._wait()  # every server: a search may match any of them
        found = rank(query, self._candidates(), int(count))
        self._load([tool.name for tool in found])
        if not found:
            text = "No matching tools found."
        else:
            plural = "" if len(found) == 1 else "s"
            lines = "\n".join(
                f"- {tool.name}: {(tool.description.strip().splitlines() or [''])[0]}"
                for tool in found
            )
            text = (
                f"Loaded {len(found)} tool{plural}. "
                f"They are available from your next call:\n{lines}"
            )
        return AgentToolResult(
            content=[TextContent(text=text)], details={"loaded": [t.name for t in found]}
        )
