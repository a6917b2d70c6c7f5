"""A session's branch as Markdown: replies as they were written, everything else fenced.

Tool arguments, outputs, diffs and command output go in fenced blocks whose fence is
longer than any backtick run inside, so nothing a tool printed can close its block and
turn into markup.
"""

from __future__ import annotations

import json
import re

from pitui.ai.types import TextContent, ThinkingContent
from pitui.core.export.items import (
    BashBlock,
    Block,
    BranchSummaryBlock,
    CompactionBlock,
    CustomBlock,
    NoteBlock,
    ReplyBlock,
    ToolBlock,
    UserBlock,
)
from pitui.core.export.summary import ExportHeader
from pitui.core.sanitize import inert
from pitui.core.tool_titles import tool_title_text

_BACKTICKS = re.compile(r"`+")


def fenced(text: str, info: str = "") -> str:
    """``text`` in a code fence no line of it can close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def code(text: str) -> str:
    """``text`` as inline code (a fence if it spans lines), whatever backticks it holds."""
    if "\n" in text:
        return "\n\n" + fenced(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    if not longest:
        return f"`{text}`"
    ticks = "`" * (longest + 1)
    return f"{ticks} {text} {ticks}"


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _tool(tool: ToolBlock) -> str:
    details = tool.result.details if tool.result is not None else None
    succeeded = tool.result is not None and not tool.result.is_error
    title = tool_title_text(tool.call.name, tool.call.arguments, details, succeeded=succeeded)
    parts = [f"**Tool:** {code(inert(title))}"]
    if tool.call.arguments:
        parts.append(fenced(json.dumps(tool.call.arguments, ensure_ascii=False, indent=2), "json"))
    diff = details.get("diff") if isinstance(details, dict) else None
    if isinstance(diff, str) and diff and succeeded:
        parts.append(fenced(inert(diff), "diff"))
    elif tool.result is None:
        parts.append("*(no result on this branch)*")
    elif tool.output.strip():
        label = "Error:" if tool.result.is_error else "Output:"
        parts.append(f"{label}\n\n{fenced(inert(tool.output), 'text')}")
    return "\n\n".join(parts)


def _reply(block: ReplyBlock) -> str:
    who = f" · {block.model}" if block.model else ""
    parts = [f"## Assistant{who}"]
    for part in block.parts:
        if isinstance(part, ThinkingContent):
            parts.append(_quoted(f"**Thinking**\n\n{inert(part.thinking.strip())}"))
        elif isinstance(part, TextContent):
            parts.append(inert(part.text))
        else:
            parts.append(_tool(part))
    if block.stop_reason == "aborted":
        parts.append("*Operation aborted*")
    elif block.stop_reason == "error":
        parts.append(f"**Error:** {inert(block.error or 'unknown error')}")
    return "\n\n".join(parts)


def _bash(block: BashBlock) -> str:
    message = block.message
    parts = [f"### {code('$ ' + inert(message.command))}"]
    if message.output:
        parts.append(fenced(inert(message.output), "text"))
    if message.cancelled:
        parts.append("*(cancelled)*")
    elif message.exit_code not in (None, 0):
        parts.append(f"*(exit {message.exit_code})*")
    if message.exclude_from_context:
        parts.append("*`!!`: not sent to the model*")
    return "\n\n".join(parts)


def _block(block: Block) -> str:
    if isinstance(block, UserBlock):
        images = f"\n\n*({len(block.images)} image(s) attached)*" if block.images else ""
        return f"## You\n\n{inert(block.text)}{images}"
    if isinstance(block, ReplyBlock):
        return _reply(block)
    if isinstance(block, BashBlock):
        return _bash(block)
    if isinstance(block, CustomBlock):
        return f"**[{inert(block.custom_type)}]**\n\n{inert(block.text)}"
    if isinstance(block, CompactionBlock):
        heading = f"**Compacted from {block.tokens_before:,} tokens**"
        return _quoted(f"{heading}\n\n{inert(block.summary)}")
    if isinstance(block, BranchSummaryBlock):
        return _quoted(f"**Branch summary**\n\n{inert(block.summary)}")
    assert isinstance(block, NoteBlock)
    return f"*{block.text}*"


def render_markdown_export(header: ExportHeader, blocks: list[Block]) -> str:
    """The whole document."""
    facts = "\n".join(f"- **{label}:** {inert(value)}" for label, value in header.facts())
    body = "\n\n".join(_block(block) for block in blocks)
    return f"# {inert(header.title)}\n\n{facts}\n\n---\n\n{body}\n"
