"""The context inspector's rows and details, from a context report (pure, no Textual).

One table: the system prompt, each tool definition, every message of the request (role,
the transcript role it was made from, its entry, tokens and share of the window), what
stays out and why, and each custom message's two switches. The screen draws these rows;
Enter on one shows :func:`row_detail`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pitui.core.context_report import ContextReport
from pitui.core.context_unsent import flat
from pitui.core.message_text import message_preview, message_text
from pitui.ui.view.format import format_tokens

RowKind: TypeAlias = Literal["heading", "system", "tool", "message", "unsent", "custom", "note"]
DISPLAY_NOTE = (
    "display: off hides a message from the conversation only; the model still receives it. "
    "Only excludeFromContext keeps it from the model."
)
COLUMNS = ("#", "Role", "From", "Entry", "Tokens", "Share", "Content")
# Short names where the report's are long, so the content column keeps room at 80 columns.
_SHORT = {
    "bashExecution": "bash",
    "branchSummary": "branch",
    "compactionSummary": "compaction",
    "thinking_level_change": "thinking",
    "model_change": "model",
    "session_info": "name",
    "branch_summary": "branch",
}


def _short(kind: str) -> str:
    return _SHORT.get(kind, kind)


@dataclass(frozen=True, slots=True)
class InspectorRow:
    """One table row: a stable key, what it is, and its cells (one per column)."""

    key: str
    kind: RowKind
    cells: tuple[str, str, str, str, str, str, str]


def _share(report: ContextReport, tokens: int) -> str:
    share = report.share(tokens)
    return "" if share is None else f"{share:.1f}%"


def _row(
    key: str,
    kind: RowKind,
    content: str,
    *,
    number: str = "",
    role: str = "",
    source: str = "",
    entry: str = "",
    tokens: str = "",
    share: str = "",
) -> InspectorRow:
    return InspectorRow(key, kind, (number, role, source, entry, tokens, share, content))


def _heading(key: str, text: str) -> InspectorRow:
    return _row(key, "heading", text)


def summary_line(report: ContextReport) -> str:
    """The line above the table: model, total against the window, counts."""
    total = report.total_tokens
    window = report.context_window
    against = f" of {window:,} ({total * 100 / window:.1f}%)" if window else ""
    model = report.request_model or "no model"
    compacted = f" · {report.compacted.count:,} compacted away" if report.compacted else ""
    return (
        f"Next request to {model}: ~{total:,} tokens{against} · "
        f"{len(report.messages)} messages · {len(report.tools)} tools · "
        f"{len(report.not_sent)} not sent{compacted}"
    )


def inspector_rows(report: ContextReport) -> list[InspectorRow]:
    """Every row of the inspector, in order."""
    rows = [_heading("h:request", "What the model receives")]
    first_line = report.system_prompt.strip().split("\n", 1)[0]
    tokens = report.system_tokens
    rows.append(
        _row(
            "system",
            "system",
            flat(first_line),
            role="system",
            tokens=format_tokens(tokens),
            share=_share(report, tokens),
        )
    )
    if report.skills_block:
        rows.append(
            _row(
                "skills",
                "system",
                f"skills: {', '.join(report.skill_names)} (names, descriptions, paths)",
                role="system",
                tokens=format_tokens(report.skills_tokens),
                share=_share(report, report.skills_tokens),
            )
        )
    for tool in report.tools:
        description = str(tool.definition.get("description", ""))
        text = f"schema ~{format_tokens(tool.schema_tokens)} · {flat(description, 60)}"
        rows.append(
            _row(
                f"tool:{tool.name}",
                "tool",
                text,
                role="tool",
                source=tool.name,
                tokens=format_tokens(tool.tokens),
                share=_share(report, tool.tokens),
            )
        )
    rows.append(_heading("h:messages", f"Messages ({len(report.messages)})"))
    for number, sent in enumerate(report.messages, 1):
        source = sent.source_role if sent.source_role != sent.message.role else ""
        preview = message_preview(sent.message)
        if sent.note:
            preview = f"({sent.note}) {preview}"
        rows.append(
            _row(
                f"message:{number - 1}",
                "message",
                preview,
                number=str(number),
                role=sent.message.role,
                source=_short(source or ""),
                entry=sent.entry_id or "",
                tokens=format_tokens(sent.tokens),
                share=_share(report, sent.tokens),
            )
        )
    rows += _not_sent_rows(report)
    rows += _custom_rows(report)
    return rows


def _not_sent_rows(report: ContextReport) -> list[InspectorRow]:
    compacted = report.compacted
    if not report.not_sent and compacted is None:
        return []
    rows = [_heading("h:unsent", f"Not sent to the model ({len(report.not_sent)})")]
    if compacted is not None:  # one row for the whole range, however long
        rows.append(
            _row(
                "compacted",
                "unsent",
                f"{compacted.reason} · {compacted.describe()}",
                role="compacted",
                entry=compacted.id_range,
                tokens=format_tokens(compacted.tokens),
            )
        )
    for index, item in enumerate(report.not_sent):
        text = f"{item.reason}" + (f" · {item.preview}" if item.preview else "")
        rows.append(
            _row(
                f"unsent:{index}",
                "unsent",
                text,
                role=_short(item.kind),
                entry=item.entry_id or "",
                tokens=format_tokens(item.tokens),
            )
        )
    return rows


def _custom_rows(report: ContextReport) -> list[InspectorRow]:
    if not report.custom:
        return []
    rows = [_heading("h:custom", "Custom messages: shown in the UI and sent are two switches")]
    for index, custom in enumerate(report.custom):
        shown = "display: on" if custom.display else "display: off (hidden in the conversation)"
        sent = "sent to the model" if custom.sent else "not sent (excludeFromContext)"
        rows.append(
            _row(
                f"custom:{index}",
                "custom",
                f"{shown} · {sent}",
                role="custom",
                source=custom.custom_type,
                entry=custom.entry_id or "",
            )
        )
    rows.append(_row("note:display", "note", DISPLAY_NOTE))
    return rows


def row_detail(report: ContextReport, key: str) -> tuple[str, str] | None:
    """``(title, text)`` shown for a row on Enter: the item whole, as sent."""
    kind, _, rest = key.partition(":")
    if kind == "system":
        return f"System prompt (~{report.system_tokens:,} tokens)", report.system_prompt
    if kind == "skills":
        return f"Skills block of the system prompt (~{report.skills_tokens:,} tokens)", (
            report.skills_block
        )
    if kind == "tool":
        tool = next((t for t in report.tools if t.name == rest), None)
        if tool is None:
            return None
        body = json.dumps(tool.definition, ensure_ascii=False, indent=2)
        return f"Tool {tool.name} (~{tool.tokens:,} tokens)", body
    if kind == "message":
        sent = report.messages[int(rest)]
        where = f" · entry {sent.entry_id}" if sent.entry_id else ""
        title = (
            f"Message {int(rest) + 1} of {len(report.messages)}{where} (~{sent.tokens:,} tokens)"
        )
        return title, message_text(sent.message)
    if kind == "compacted" and report.compacted is not None:
        compacted = report.compacted
        body = (
            f"{compacted.reason}.\n\n{compacted.describe()}: {compacted.id_range}.\n\n"
            "Tokens: what these entries would cost if they were sent (chars/4), estimated "
            "from their size in the file."
        )
        return f"Replaced by compaction {compacted.compaction_id}", body
    if kind == "unsent":
        item = report.not_sent[int(rest)]
        body = f"{item.reason}\n\n{item.preview}" if item.preview else item.reason
        return f"Not sent: {item.kind} {item.entry_id or ''}".rstrip(), body
    if kind in ("custom", "note"):
        return "Custom messages", DISPLAY_NOTE
    return None
