"""Markdown to styled text, the way pi draws it: one block of lines, pi's ``md*`` tokens.

Assistant replies are shown as :class:`~textual.content.Content` rather than Textual's
``Markdown`` widget tree: a long reply as widgets is hundreds of widgets that Textual lays
out again on every streamed frame, and every finished reply above it adds more. As text, a
reply is one widget per group of blocks (see :mod:`pitui.ui.widgets.assistant_text`).

Styles are pi theme variables (``$pi-mdHeading``, ``$pi-mdCode`` …), resolved by the app.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from textual.content import Content

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

HR_WIDTH = 40


@cache
def _parser() -> MarkdownIt:
    """CommonMark plus GFM tables and strikethrough, built on first use (not before the
    first frame; and without linkify, which gfm-like would pull in)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


@dataclass
class _Node:
    """A block token with its children (markdown-it gives a flat open/close stream)."""

    token: Token
    children: list[_Node] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.token.type.removesuffix("_open")


def parse(source: str) -> list[Token]:
    """markdown-it block tokens of ``source``."""
    return _parser().parse(source)


def block_starts(tokens: Sequence[Token]) -> list[int]:
    """The source line where each top-level block starts, in order."""
    return [t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map is not None]


def render(source: str) -> Content:
    """``source`` as styled text."""
    return render_tokens(parse(source))


def render_tokens(tokens: Sequence[Token]) -> Content:
    """Parsed ``tokens`` as styled text (blocks separated by a blank line)."""
    lines = _blocks(_tree(tokens), loose=True)
    return Content("\n").join(lines)


def _tree(tokens: Sequence[Token]) -> list[_Node]:
    root: list[_Node] = []
    stack: list[list[_Node]] = [root]
    for token in tokens:
        if token.nesting == -1:
            if len(stack) > 1:
                stack.pop()
            continue
        node = _Node(token)
        stack[-1].append(node)
        if token.nesting == 1:
            stack.append(node.children)
    return root


def _blocks(nodes: list[_Node], *, loose: bool) -> list[Content]:
    """Lines of sibling blocks; ``loose`` puts a blank line between them."""
    lines: list[Content] = []
    for node in nodes:
        block = _block(node)
        if not block:
            continue
        if lines and loose:
            lines.append(Content(""))
        lines.extend(block)
    return lines


def _block(node: _Node) -> list[Content]:
    kind = node.kind
    token = node.token
    if kind == "inline":
        return _inline(token).split("\n")
    if kind == "paragraph":
        return _blocks(node.children, loose=False)
    if kind == "heading":
        return _heading(node)
    if kind in ("bullet_list", "ordered_list"):
        return _list(node)
    if kind == "blockquote":
        return _quote(node)
    if kind in ("fence", "code_block"):
        return _code(token)
    if kind == "hr":
        return [Content.styled("─" * HR_WIDTH, "$pi-mdHr")]
    if kind == "table":
        return _table(node)
    if kind == "html_block":
        return [Content(line) for line in token.content.rstrip("\n").split("\n")]
    return _blocks(node.children, loose=False)


def _heading(node: _Node) -> list[Content]:
    level = int(node.token.tag[1:]) if node.token.tag[1:].isdigit() else 1
    text = Content("").join(_blocks(node.children, loose=False))
    if level == 1:
        return [text.stylize_before("bold underline $pi-mdHeading")]
    if level == 2:
        return [text.stylize_before("bold $pi-mdHeading")]
    prefix = Content.styled("#" * level + " ", "bold $pi-mdHeading")
    return [prefix + text.stylize_before("bold $pi-mdHeading")]


def _list(node: _Node) -> list[Content]:
    ordered = node.kind == "ordered_list"
    start = node.token.attrGet("start")
    number = int(start) if isinstance(start, int | str) and str(start).isdigit() else 1
    lines: list[Content] = []
    for item in node.children:
        marker = f"{number}. " if ordered else "- "
        number += 1
        body = _blocks(item.children, loose=False) or [Content("")]
        lines.append(Content.styled(marker, "$pi-mdListBullet") + body[0])
        pad = Content(" " * len(marker))
        lines.extend(pad + line for line in body[1:])
    return lines


def _quote(node: _Node) -> list[Content]:
    bar = Content.styled("│ ", "$pi-mdQuoteBorder")
    inner = _blocks(node.children, loose=True)
    return [bar + line.stylize_before("italic $pi-mdQuote") for line in inner]


def _code(token: Token) -> list[Content]:
    info = token.info.strip() if token.type == "fence" else ""
    code = token.content.removesuffix("\n")
    fence = "$pi-mdCodeBlockBorder"
    body = [Content.styled(line, "$pi-mdCodeBlock") for line in code.split("\n")]
    return [Content.styled(f"```{info}", fence), *body, Content.styled("```", fence)]


def _table(node: _Node) -> list[Content]:
    rows: list[tuple[bool, list[Content]]] = []
    for section in node.children:
        header = section.kind == "thead"
        for row in section.children:
            cells = [Content("").join(_blocks(cell.children, loose=False)) for cell in row.children]
            rows.append((header, [c.stylize_before("bold") if header else c for c in cells]))
    if not rows:
        return []
    columns = max(len(cells) for _, cells in rows)
    widths = [0] * columns
    for _, cells in rows:
        for i, cell in enumerate(cells):
            widths[i] = max(widths[i], cell.cell_length)
    sep = Content.styled(" │ ", "$pi-mdCodeBlockBorder")
    lines: list[Content] = []
    for header, cells in rows:
        padded = [
            (cells[i] if i < len(cells) else Content("")).pad_right(
                widths[i] - (cells[i].cell_length if i < len(cells) else 0)
            )
            for i in range(columns)
        ]
        lines.append(sep.join(padded))
        if header:
            rule = "─┼─".join("─" * w for w in widths)
            lines.append(Content.styled(rule, "$pi-mdCodeBlockBorder"))
    return lines


_INLINE_STYLES = {"strong": "bold", "em": "italic", "s": "strike"}


def _inline(token: Token) -> Content:
    """An inline token's children as one Content (hard breaks as newlines)."""
    pieces: list[Content] = []
    styles: list[str] = []
    href: str | None = None
    link_start = 0
    for child in token.children or []:
        kind = child.type
        base = kind.removesuffix("_open").removesuffix("_close")
        if kind.endswith("_open") and base in _INLINE_STYLES:
            styles.append(_INLINE_STYLES[base])
        elif kind.endswith("_close") and base in _INLINE_STYLES:
            if styles:
                styles.pop()
        elif kind == "link_open":
            value = child.attrGet("href")
            href = str(value) if value is not None else None
            link_start = len(pieces)
            styles.append("underline $pi-mdLink")
        elif kind == "link_close":
            if styles:
                styles.pop()
            shown = "".join(p.plain for p in pieces[link_start:])
            if href and href != shown and f"mailto:{shown}" != href:
                pieces.append(Content.styled(f" ({href})", "$pi-mdLinkUrl"))
            href = None
        elif kind == "code_inline":
            pieces.append(Content.styled(child.content, " ".join([*styles, "$pi-mdCode"])))
        elif kind == "softbreak":
            pieces.append(Content(" "))
        elif kind == "hardbreak":
            pieces.append(Content("\n"))
        elif kind == "image":
            pieces.append(Content.styled(f"[image: {child.content}]", "$pi-mdLinkUrl"))
        else:
            pieces.append(Content.styled(child.content, " ".join(styles)))
    return Content("").join(pieces)
