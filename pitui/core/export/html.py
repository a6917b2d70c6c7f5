"""A session's branch as one self-contained HTML page, in a pi theme's colours.

Self-contained: the styles are inline, there is no script, fonts are the system's, and
images are embedded as ``data:`` URLs; a Content-Security-Policy forbids everything else,
so even a mistake in escaping could neither run nor fetch anything. Every text from the
model, a tool or the user is escaped (:func:`~pitui.core.export.markdown_html.escape`);
replies are rendered markdown with raw HTML off.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from pitui import __version__
from pitui.ai.types import TextContent, ThinkingContent
from pitui.core.export.items import (
    BashBlock,
    Block,
    BranchSummaryBlock,
    CompactionBlock,
    CustomBlock,
    Image,
    NoteBlock,
    ReplyBlock,
    ToolBlock,
    UserBlock,
)
from pitui.core.export.markdown_html import escape, render_markdown
from pitui.core.export.page_style import page_style
from pitui.core.export.summary import ExportHeader
from pitui.core.sanitize import inert
from pitui.core.themes import PiTheme
from pitui.core.tool_titles import tool_title

SHOWN_LINES = 20
"""Output lines shown before the rest folds away under "N more lines"."""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def _text(value: str) -> str:
    """Untrusted text for element content: inert (no terminal control) and escaped."""
    return escape(inert(value))


def _image(image: Image) -> str:
    if image.mime_type not in _IMAGE_TYPES or not _BASE64.match(image.data):
        return f'<div class="muted">[image {_text(image.mime_type)} not shown]</div>'
    source = f"data:{image.mime_type};base64,{image.data}"
    return f'<img class="attached" alt="attached image" src="{source}">'


def _images(images: Iterable[Image]) -> str:
    return "".join(_image(image) for image in images)


def _output(text: str, css: str = "output") -> str:
    """A block of output: the first lines, the rest behind a "more lines" fold."""
    lines = inert(text).rstrip("\n").split("\n")
    head = escape("\n".join(lines[:SHOWN_LINES]))
    if len(lines) <= SHOWN_LINES:
        return f'<pre class="{css}">{head}</pre>'
    rest = escape("\n".join(lines[SHOWN_LINES:]))
    more = _count(len(lines) - SHOWN_LINES, "more line")
    return (
        f'<pre class="{css}">{head}</pre><details class="more"><summary>… {more}'
        f'</summary><pre class="{css}">{rest}</pre></details>'
    )


def _count(number: int, noun: str) -> str:
    """``1 line``, ``2 lines``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _diff(diff: str) -> str:
    rows = []
    for line in inert(diff).split("\n"):
        kind = {"+": "added", "-": "removed"}.get(line[:1], "context")
        rows.append(f'<span class="diff-{kind}">{escape(line)}</span>')
    joined = "\n".join(rows)
    return f'<pre class="diff">{joined}</pre>'


def _tool_state(tool: ToolBlock) -> str:
    if tool.result is None:
        return "pending"
    return "error" if tool.result.is_error else "success"


def _tool_body(tool: ToolBlock) -> str:
    details = tool.result.details if tool.result is not None else None
    diff = details.get("diff") if isinstance(details, dict) else None
    if isinstance(diff, str) and diff and _tool_state(tool) == "success":
        return _diff(diff)
    if tool.result is None:
        return '<div class="muted">no result on this branch</div>'
    body = _output(tool.output) if tool.output.strip() else ""
    return body + _images(tool.images)


def _tool(tool: ToolBlock) -> str:
    state = _tool_state(tool)
    details = tool.result.details if tool.result is not None else None
    title = "".join(
        f'<span class="t-{kind}">{_text(text)}</span>'
        for text, kind in tool_title(
            tool.call.name, tool.call.arguments, details, succeeded=state == "success"
        )
    )
    arguments = json.dumps(tool.call.arguments, ensure_ascii=False, indent=2)
    return (
        f'<div class="tool {state}"><div class="tool-title">{title}</div>'
        f'<details class="args"><summary>arguments</summary><pre>{_text(arguments)}</pre>'
        f"</details>{_tool_body(tool)}</div>"
    )


def _reply(block: ReplyBlock) -> str:
    parts = []
    for part in block.parts:
        if isinstance(part, ThinkingContent):
            count = _count(len(part.thinking.strip().split("\n")), "line")
            parts.append(
                f'<details class="thinking"><summary>Thinking · {count}</summary>'
                f'<div class="thinking-text">{_text(part.thinking)}</div></details>'
            )
        elif isinstance(part, TextContent):
            parts.append(f'<div class="md">{render_markdown(inert(part.text))}</div>')
        else:
            parts.append(_tool(part))
    if block.stop_reason == "aborted":
        parts.append('<div class="error">Operation aborted</div>')
    elif block.stop_reason == "error":
        parts.append(f'<div class="error">Error: {_text(block.error or "unknown error")}</div>')
    who = f" · {_text(block.model)}" if block.model else ""
    return (
        f'<section class="reply"><div class="role">Assistant{who}</div>{"".join(parts)}</section>'
    )


def _bash(block: BashBlock) -> str:
    message = block.message
    excluded = " excluded" if message.exclude_from_context else ""
    marks = []
    if message.cancelled:
        marks.append("(cancelled)")
    elif message.exit_code is not None and message.exit_code != 0:
        marks.append(f"(exit {message.exit_code})")
    if message.truncated and message.full_output_path:
        marks.append(f"[Full output: {_text(message.full_output_path)}]")
    if message.exclude_from_context:
        marks.append("!! not sent to the model")
    output = _output(message.output) if message.output else ""
    tail = f'<div class="muted">{" ".join(marks)}</div>' if marks else ""
    return (
        f'<section class="bash{excluded}"><div class="tool-title"><span class="t-title">'
        f"$ {_text(message.command)}</span></div>{output}{tail}</section>"
    )


def _block(block: Block) -> str:
    if isinstance(block, UserBlock):
        return (
            f'<section class="user"><div class="role">You</div>'
            f'<div class="plain">{_text(block.text)}</div>{_images(block.images)}</section>'
        )
    if isinstance(block, ReplyBlock):
        return _reply(block)
    if isinstance(block, BashBlock):
        return _bash(block)
    if isinstance(block, CustomBlock):
        return (
            f'<section class="custom"><div class="label">[{_text(block.custom_type)}]</div>'
            f'<div class="plain">{_text(block.text)}</div>{_images(block.images)}</section>'
        )
    if isinstance(block, CompactionBlock):
        return (
            f'<details class="card compaction"><summary>Compacted from '
            f"{block.tokens_before:,} tokens</summary>"
            f'<div class="md">{render_markdown(inert(block.summary))}</div></details>'
        )
    if isinstance(block, BranchSummaryBlock):
        return (
            '<details class="card branch"><summary>Branch summary</summary>'
            f'<div class="md">{render_markdown(inert(block.summary))}</div></details>'
        )
    assert isinstance(block, NoteBlock)
    return f'<div class="note">{_text(block.text)}</div>'


def _header(header: ExportHeader) -> str:
    rows = "".join(
        f"<dt>{escape(label)}</dt><dd>{_text(value)}</dd>" for label, value in header.facts()
    )
    return f"<header><h1>{_text(header.title)}</h1><dl>{rows}</dl></header>"


def render_html(header: ExportHeader, blocks: list[Block], theme: PiTheme) -> str:
    """The whole page."""
    body = "\n".join(_block(block) for block in blocks)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(header.title)} · pitui</title>"
        f"<style>{page_style(theme)}</style></head>\n"
        f"<body><main>{_header(header)}\n{body}\n"
        f"<footer>Exported by pitui {escape(__version__)} · theme {_text(theme.name)}</footer>"
        "</main></body></html>\n"
    )
