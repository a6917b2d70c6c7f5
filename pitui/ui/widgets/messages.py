"""Conversation item widgets: user, assistant (streamed markdown), thinking, bash, cards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from pitui.core.sanitize import inert
from pitui.ui.view.state import (
    ApprovalItem,
    AssistantItem,
    BashItem,
    BranchSummaryItem,
    ChatItem,
    CompactionItem,
    CustomItem,
    NoticeItem,
    ProgressItem,
    SystemPromptItem,
    ThinkingItem,
    ToolCardItem,
    UserItem,
)
from pitui.ui.widgets.base import ItemStatic
from pitui.ui.widgets.notice_line import NoticeLine

if TYPE_CHECKING:
    from textual.widget import Widget

GLYPHS = {"pending": "○", "running": "●", "success": "✓", "error": "✗", "denied": "⊘"}
GLYPH_STYLES = {
    "pending": "$pi-muted",
    "running": "$pi-accent",
    "success": "$pi-success",
    "error": "$pi-error",
    "denied": "$pi-warning",
}
BASH_PREVIEW_LINES = 20


class UserMessage(ItemStatic):
    """A user prompt on a tinted block."""

    def render_item(self, item: UserItem) -> Content:
        suffix = f"\n[{item.images} image{'s' if item.images != 1 else ''}]" if item.images else ""
        text = Content(inert(item.text) + suffix)
        if item.branch is None:
            return text
        from pitui.ui.widgets.assistant_text import branch_switch

        return Content.assemble(text, "\n", branch_switch(item.branch))


class ThinkingBlock(ItemStatic):
    """A thinking block: one line when collapsed, italic text when expanded."""

    FOLDABLE = True

    def render_item(self, item: ThinkingItem) -> Content:
        text = inert(item.text).strip()
        if not item.expanded:
            count = len(text.split("\n")) if text else 0
            plural = "line" if count == 1 else "lines"
            label = "Thinking..." if item.streaming else f"Thinking · {count} {plural}"
            return Content.styled(f"▸ {label}", "italic $pi-thinkingText")
        return Content.assemble(("▾ Thinking\n", "$pi-muted"), (text, "italic $pi-thinkingText"))


class ToolRef(ItemStatic):
    """The one-line mention of a tool call under the reply that made it."""

    FOLDABLE = True

    def render_item(self, item: ToolCardItem) -> Content:
        from pitui.ui.widgets.tool_renderers import renderer_for

        header = renderer_for(item.tool_name).header(item)
        glyph = (f" {GLYPHS[item.state]}", GLYPH_STYLES[item.state])
        return Content.assemble(("└ ", "$pi-muted"), header, glyph)


class BashBlock(ItemStatic):
    """A user ``!`` command: ``$ cmd``, the output tail and how it ended."""

    FOLDABLE = True

    def classes_for(self, item: ChatItem) -> str:
        assert isinstance(item, BashItem)
        return " ".join(
            c
            for c, on in (
                ("-expanded", item.expanded),
                ("-running", item.running),
                ("-excluded", item.exclude_from_context),
            )
            if on
        )

    def render_item(self, item: BashItem) -> Content:
        parts: list[Content] = [Content.styled(f"$ {inert(item.command)}", "bold $pi-bashMode")]
        output = inert(item.output).strip("\n")
        if output:
            lines = output.split("\n")
            if not item.expanded and len(lines) > BASH_PREVIEW_LINES:
                skipped = len(lines) - BASH_PREVIEW_LINES
                parts.append(Content.styled(f"... ({skipped} earlier lines)", "$pi-muted"))
                lines = lines[-BASH_PREVIEW_LINES:]
            parts.append(Content.styled("\n".join(lines), "$pi-toolOutput"))
        status = _bash_status(item)
        if status:
            parts.append(Content.styled(status, "$pi-warning" if item.cancelled else "$pi-muted"))
        return Content("\n").join(parts)


def _bash_status(item: BashItem) -> str:
    if item.running:
        return ""
    if item.cancelled:
        status = "(cancelled)"
    elif item.exit_code not in (None, 0):
        status = f"(exit {item.exit_code})"
    else:
        status = ""
    if item.truncated and item.full_output_path:
        status = f"{status} Output truncated. Full output: {inert(item.full_output_path)}".strip()
    return status


class CustomBlock(ItemStatic):
    """A displayed custom message, boxed with its ``[customType]`` label."""

    FOLDABLE = True

    def render_item(self, item: CustomItem) -> Content:
        label = Content.styled(f"[{inert(item.custom_type)}]", "bold $pi-customMessageLabel")
        if not item.expanded:
            return label
        return Content.assemble(label, "\n", inert(item.text))


class SummaryCard(ItemStatic):
    """Compaction and branch summaries: collapsed to one line, expanded in place."""

    FOLDABLE = True

    def render_item(self, item: CompactionItem | BranchSummaryItem | SystemPromptItem) -> Content:
        if isinstance(item, CompactionItem):
            title, body = f"Compacted from {item.tokens_before:,} tokens", item.summary
        elif isinstance(item, SystemPromptItem):
            title, body = f"System prompt · {inert(item.summary)}", item.text
        else:
            title, body = "Branch summary", item.summary
        marker = "▾" if item.expanded else "▸"
        head = Content.styled(f"{marker} {title}", "bold $pi-customMessageLabel")
        if not item.expanded:
            return Content.assemble(head, (" (ctrl+o to expand)", "$pi-dim"))
        if isinstance(item, SystemPromptItem):  # shown as sent: tags and lists verbatim
            return Content.assemble(head, "\n", inert(body))
        from pitui.ui import md_render  # summaries are Markdown (pi's skeleton)

        return Content.assemble(head, "\n\n", md_render.render(inert(body)))


class ApprovalCard(ItemStatic):
    """A permission prompt in the conversation; the modal answers it."""

    def classes_for(self, item: ChatItem) -> str:
        assert isinstance(item, ApprovalItem)
        return f"-{item.status}"

    def render_item(self, item: ApprovalItem) -> Content:
        card = ToolCardItem(item.id, item.tool_call_id, item.tool_name, item.args)
        from pitui.ui.widgets.tool_renderers import renderer_for

        header = renderer_for(item.tool_name).header(card)
        title = Content.assemble(("Allow ", "bold"), header, ("?", "bold"))
        answers = {
            "pending": "waiting for your answer in the dialog",
            "allowed": "allowed",
            "denied": "denied" + (f": {item.reason}" if item.reason else ""),
        }
        return Content.assemble(title, "\n", (answers[item.status], "$pi-muted"))


def _assistant_markdown(item: AssistantItem) -> Widget:
    # Imported with the first reply: markdown rendering is not needed for notices (the
    # first frame may show one).
    from pitui.ui.widgets.assistant_text import AssistantMarkdown

    return AssistantMarkdown(item)


def _progress_card(item: ProgressItem) -> Widget:
    from pitui.ui.widgets.progress_card import ProgressCard

    return ProgressCard(item)


CONVERSATION_WIDGETS: dict[type, Any] = {
    UserItem: UserMessage,
    AssistantItem: _assistant_markdown,
    ThinkingItem: ThinkingBlock,
    ToolCardItem: ToolRef,
    BashItem: BashBlock,
    CustomItem: CustomBlock,
    CompactionItem: SummaryCard,
    BranchSummaryItem: SummaryCard,
    SystemPromptItem: SummaryCard,
    ApprovalItem: ApprovalCard,
    NoticeItem: NoticeLine,
    ProgressItem: _progress_card,
}
"""Which widget shows an item in the conversation, by item type."""
