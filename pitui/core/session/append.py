"""The typed ``append_*`` operations of :class:`~pitui.core.session.store.SessionStore`.

Each builds one entry as a child of the leaf (pi's field set, ISO timestamp, fresh
8-hex id) and hands it to the store's ``_append``, which indexes and persists it.
"""

from __future__ import annotations

from typing import Any

from pitui.agent.messages import AgentMessage
from pitui.ai.types import UserContent
from pitui.core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from pitui.core.session.ids import iso_now, new_entry_id
from pitui.core.session.table import EntryTable
from pitui.errors import SessionError


class AppendMixin:
    """Entry-building appends; the store supplies the table, leaf, labels and ``_append``."""

    _table: EntryTable
    _leaf: str | None
    _labels: dict[str, str]

    async def _append(self, entry: SessionEntry) -> str:
        raise NotImplementedError

    def _base(self) -> dict[str, Any]:
        return {"id": new_entry_id(self._table.index), "parent_id": self._leaf}

    async def append_message(self, message: AgentMessage) -> str:
        """Append a message as a child of the leaf; returns the new entry's id."""
        return await self._append(
            MessageEntry(**self._base(), timestamp=iso_now(), message=message)
        )

    async def append_thinking_level_change(self, thinking_level: str) -> str:
        """Record a thinking-level change."""
        entry = ThinkingLevelChangeEntry(
            **self._base(), timestamp=iso_now(), thinking_level=thinking_level
        )
        return await self._append(entry)

    async def append_model_change(self, provider: str, model_id: str) -> str:
        """Record a model change."""
        entry = ModelChangeEntry(
            **self._base(), timestamp=iso_now(), provider=provider, model_id=model_id
        )
        return await self._append(entry)

    async def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
    ) -> str:
        """Record a compaction (what the model sees: summary + kept entries + later ones)."""
        entry = CompactionEntry(
            **self._base(),
            timestamp=iso_now(),
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
            from_hook=from_hook,
        )
        return await self._append(entry)

    async def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Store extension state (never sent to the model)."""
        entry = CustomEntry(**self._base(), timestamp=iso_now(), custom_type=custom_type, data=data)
        return await self._append(entry)

    async def append_custom_message(
        self,
        custom_type: str,
        content: str | list[UserContent],
        display: bool = True,
        details: Any = None,
        exclude_from_context: bool | None = None,
    ) -> str:
        """Append a custom message entry (sent as a user message unless excluded)."""
        entry = CustomMessageEntry(
            **self._base(),
            timestamp=iso_now(),
            custom_type=custom_type,
            content=content,
            details=details,
            display=display,
            exclude_from_context=exclude_from_context,
        )
        return await self._append(entry)

    async def set_name(self, name: str) -> str:
        """Append a ``session_info`` entry with the trimmed name."""
        entry = SessionInfoEntry(**self._base(), timestamp=iso_now(), name=name.strip())
        return await self._append(entry)

    async def set_label(self, target_id: str, label: str | None) -> str:
        """Set (or with None/empty, clear) an entry's label.

        Raises:
            SessionError: No entry has ``target_id``.
        """
        if target_id not in self._table.index:
            raise SessionError(f"Entry {target_id} not found")
        entry = LabelEntry(**self._base(), timestamp=iso_now(), target_id=target_id, label=label)
        entry_id = await self._append(entry)
        if label:
            self._labels[target_id] = label
        else:
            self._labels.pop(target_id, None)
        return entry_id

    async def branch_with_summary(
        self,
        from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
    ) -> str:
        """Move the leaf to ``from_id`` and append a branch summary there."""
        if from_id is not None and from_id not in self._table.index:
            raise SessionError(f"Entry {from_id} not found")
        self._leaf = from_id
        entry = BranchSummaryEntry(
            **self._base(),
            timestamp=iso_now(),
            from_id=from_id if from_id is not None else "root",
            summary=summary,
            details=details,
            from_hook=from_hook,
        )
        return await self._append(entry)
