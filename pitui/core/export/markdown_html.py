"""Markdown → HTML that is safe to open: nothing from the model can run or fetch.

markdown-it (already installed with Textual; the TUI parses replies with it too) with raw
HTML off, so ``<script>`` or ``<img onerror>`` in a reply is text. Its link check already
refuses ``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` URLs; on top of
that, images are never loaded (a remote image would be a network fetch when the page is
opened): they are shown as a link-less note with their address as text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["escape", "render_markdown"]


def escape(text: str) -> str:
    """``text`` with ``& < > " '`` escaped, safe in element content and attribute values."""
    return html.escape(text, quote=True)


def _image(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    token = tokens[index]
    alt = "".join(child.content for child in token.children or [])
    source = str(token.attrGet("src") or "")
    return f'<span class="md-image">[image: {escape(alt)}] {escape(source)}</span>'


def _link_open(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
    tokens[index].attrSet("rel", "noopener noreferrer nofollow")
    rendered: str = renderer.renderToken(tokens, index, options, env)
    return rendered


@cache
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    parser.add_render_rule("image", _image)
    parser.add_render_rule("link_open", _link_open)
    return parser


def render_markdown(source: str) -> str:
    """``source`` as HTML (CommonMark plus GFM tables and strikethrough)."""
    rendered: str = _parser().render(source)
    return rendered
