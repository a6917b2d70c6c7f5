"""What the ``/session`` panel shows, as sections of label/value rows (no Textual).

Facts: the file, id, name and parent session; entries in the file; messages on the
branch by role and tool calls; tokens and cost over the branch's replies (pi's
``/session``), and over the whole file (the status bar's figures); context use (``?``
after a compaction until the next reply, PI_SPEC §6.9).

Other features add sections with :func:`register_section` (e.g. the permissions a
session remembered); each provider returns its section, or None to show nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pitui.ui.view.format import format_tokens, shorten_path

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession
    from pitui.core.session.stats import MessageStats


@dataclass(frozen=True, slots=True)
class PanelSection:
    """A titled block of ``(label, value)`` rows."""

    title: str
    rows: tuple[tuple[str, str], ...]


SectionProvider = Callable[["AgentSession"], PanelSection | None]
_PROVIDERS: list[SectionProvider] = []


def register_section(provider: SectionProvider) -> None:
    """Add a section after the built-in ones (in registration order; once each)."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)


def unregister_section(provider: SectionProvider) -> None:
    """Remove a section added with :func:`register_section`."""
    if provider in _PROVIDERS:
        _PROVIDERS.remove(provider)


def _tokens_rows(stats: MessageStats) -> tuple[tuple[str, str], ...]:
    u = stats.usage
    rows = [("Input", f"{u.input:,}"), ("Output", f"{u.output:,}")]
    rows += [("Cache read", f"{u.cache_read:,}"), ("Cache write", f"{u.cache_write:,}")]
    rows += [("Total", f"{stats.total_tokens:,}"), ("Cost", f"${u.cost:.4f}")]
    return tuple(rows)


def context_text(tokens: int | None, window: int) -> str:
    """``12,345 / 128k tokens (9.6%)``; ``?`` when unknown."""
    size = format_tokens(window) if window > 0 else "?"
    if tokens is None:
        return f"? / {size} (unknown after a compaction until the next reply)"
    if window <= 0:
        return f"{tokens:,} tokens"
    return f"{tokens:,} / {size} tokens ({tokens / window * 100:.1f}%)"


def session_sections(session: AgentSession, context_tokens: int | None) -> list[PanelSection]:
    """Every section of the panel for ``session`` now."""
    from pitui.core.session.stats import ROLE_LABELS, branch_stats

    store = session.store
    stats = branch_stats(store.table, store.get_leaf_id())
    parent = store.header.parent_session
    about = [
        ("File", shorten_path(str(session.session_file)) if session.session_file else "In-memory"),
        ("ID", store.session_id),
        ("Name", session.session_name or "(none)"),
        ("Parent", shorten_path(parent) if parent else "(none)"),
        ("Entries", f"{store.entry_count():,}"),
    ]
    if store.read_only:
        about.append(("Mode", "read-only (open in another pitui)"))
    roles = [(ROLE_LABELS.get(role, role), str(n)) for role, n in stats.by_role.items()]
    roles += [("Tool calls", str(stats.tool_calls)), ("Total", str(stats.total))]
    file_totals = session.usage_totals()
    file_rows = (
        ("Input", f"{file_totals.input:,}"),
        ("Output", f"{file_totals.output:,}"),
        ("Cache read", f"{file_totals.cache_read:,}"),
        ("Cache write", f"{file_totals.cache_write:,}"),
        ("Cost", f"${file_totals.cost:.4f}"),
    )
    model = session.model
    window = model.context_window if model is not None else 0
    context = [("Context", context_text(context_tokens, window))]
    if model is not None:
        context.append(("Model", f"{model.provider}/{model.id}"))
    sections = [
        PanelSection("Session", tuple(about)),
        PanelSection("Messages (this branch)", tuple(roles)),
        PanelSection("Tokens (this branch)", _tokens_rows(stats)),
        PanelSection("Tokens (whole file, every branch)", file_rows),
        PanelSection("Context", tuple(context)),
    ]
    for provider in _PROVIDERS:
        section = provider(session)
        if section is not None:
            sections.append(section)
    return sections


def sections_text(sections: list[PanelSection]) -> str:
    """The panel as plain text (what ``c`` copies)."""
    lines: list[str] = []
    for section in sections:
        lines.append(section.title)
        width = max((len(label) for label, _ in section.rows), default=0)
        lines += [f"  {label.ljust(width)}  {value}" for label, value in section.rows]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
