"""An entry named by its id or by the start of one (the CLI's ``--at``/``--to``, ``/diff``)."""

from __future__ import annotations

from pitui.core.session.table import EntryTable
from pitui.errors import SessionError


def resolve_entry_id(table: EntryTable, text: str) -> str:
    """The id of the one entry whose id is ``text`` or starts with it.

    Raises:
        SessionError: no entry, or several, start with ``text``.
    """
    if text in table.index:
        return text
    matches = [entry_id for entry_id in table.index if entry_id.startswith(text)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionError(f"No entry {text!r} in this session (see `pitui session tree --ids`)")
    raise SessionError(f"{text!r} starts {len(matches)} entry ids; give more of it")
