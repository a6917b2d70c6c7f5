"""The facts at the top of an export: title, session id, file, cwd, models, totals."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pitui.core.export.items import Block, ReplyBlock, UserBlock
from pitui.core.session.stats import branch_stats
from pitui.core.session.store import SessionStore


@dataclass(frozen=True)
class ExportHeader:
    """What an export says about its session before the conversation."""

    title: str
    session_id: str
    file: str | None
    cwd: str
    created: str
    exported: str
    models: list[str]
    messages: int
    tokens: str
    cost: float

    def facts(self) -> list[tuple[str, str]]:
        """``(label, value)`` rows, in reading order."""
        rows = [
            ("Session", self.session_id),
            ("File", self.file or "(not saved)"),
            ("Directory", self.cwd),
            ("Started", self.created),
            ("Exported", self.exported),
            ("Models", ", ".join(self.models) or "(none)"),
            ("Messages", str(self.messages)),
            ("Tokens (this branch)", self.tokens),
        ]
        if self.cost:
            rows.append(("Cost", f"${self.cost:.3f}"))
        return rows


def _title(store: SessionStore, blocks: list[Block]) -> str:
    name = store.get_session_name()
    if name:
        return name
    first = next((b.text for b in blocks if isinstance(b, UserBlock) and b.text.strip()), "")
    line = " ".join(first.split())
    return (line[:79] + "…" if len(line) > 80 else line) or "pitui session"


def export_header(store: SessionStore, blocks: list[Block]) -> ExportHeader:
    """The header of an export of ``store``'s branch (given as its ``blocks``)."""
    models = list(dict.fromkeys(b.model for b in blocks if isinstance(b, ReplyBlock) and b.model))
    stats = branch_stats(store.table, store.get_leaf_id())  # as /session counts it
    totals = stats.usage
    tokens = f"↑{totals.input:,} ↓{totals.output:,}"
    if totals.cache_read or totals.cache_write:
        tokens += f" R{totals.cache_read:,} W{totals.cache_write:,}"
    return ExportHeader(
        title=_title(store, blocks),
        session_id=store.session_id,
        file=str(store.path) if store.path else None,
        cwd=store.cwd,
        created=store.header.timestamp,
        exported=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        models=models,
        messages=stats.total,
        tokens=tokens,
        cost=totals.cost,
    )
