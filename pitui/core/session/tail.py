"""The last context messages of a session file's current branch, read from its end.

Opening a long session (parse, validate and index every line) takes a while; what the
user looks at first is only its last few messages. This reads the header and the end of
the file, follows the last entry's ``parentId`` chain backwards through the lines it
read, and returns the JSON of the context messages at the end of that branch, as
:func:`~pitui.core.session.context.build_context_from_table` puts them in the context
(a compaction's summary before the entries it kept, custom messages and branch
summaries in place). No models (stdlib ``json``): it runs before they are loaded.

It is a preview and never decides anything: lines that do not parse are skipped, and a
file that the loader would migrate or refuse (old version, bad header) gives None. The
session itself is always loaded by :meth:`SessionStore.open`, which reports problems.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pitui.core.session import listing
from pitui.core.session.ids import CURRENT_SESSION_VERSION

FIRST_READ = 256 * 1024
"""Bytes read from the end first; more (four times as many each time) while the branch
goes on above them, up to ``max_bytes``."""
MAX_BYTES = 8 * 1024 * 1024
HEADER_LIMIT = 64 * 1024
_CONTEXT_TYPES = frozenset({"message", "custom_message", "branch_summary"})


@dataclass
class BranchTail:
    """The end of the current branch."""

    messages: list[dict[str, Any]]
    """Context messages (message JSON), oldest first: the last ``max_messages`` of the
    context, or fewer when the branch is shorter or went on beyond what was read."""
    leaf_id: str
    """The last entry of the file (the leaf a resumed session starts at)."""
    more: bool = False
    """The context goes on above these messages (they are its last ``max_messages``)."""


def read_branch_tail(
    path: Path, max_messages: int = 30, max_bytes: int = MAX_BYTES
) -> BranchTail | None:
    """The end of ``path``'s current branch (None: no v3 session, or nothing to show)."""
    try:
        with path.open("rb") as handle:
            header_end = _header_end(handle)
            if header_end is None:
                return None
            size = os.fstat(handle.fileno()).st_size
            want = FIRST_READ
            while True:
                start = max(header_end, size - want)
                handle.seek(start)
                walk = _Walk(handle.read(size - start), start == header_end, max_messages)
                if walk.done or start == header_end or want >= max_bytes:
                    return walk.result()
                want *= 4
    except (OSError, ValueError, RecursionError):
        return None


async def branch_tail(path: Path, max_messages: int = 30) -> BranchTail | None:
    """:func:`read_branch_tail` off the event loop."""
    return await asyncio.to_thread(read_branch_tail, path, max_messages)


def resumed_file(
    cwd: Path, session_file: Path | None, session_dir: Path | None, continue_recent: bool
) -> Path | None:
    """The file ``--session FILE`` or ``-c`` opens (as :meth:`SessionStore.open` and
    :meth:`SessionStore.continue_recent` find it), if it exists; None for a new session."""
    if session_file is not None:
        file = Path(os.path.abspath(session_file))
        return file if file.is_file() else None
    if continue_recent:
        return listing.most_recent_session(session_dir or listing.default_session_dir(str(cwd)))
    return None


def _header_end(handle: BinaryIO) -> int | None:
    """Offset just after a v3 header line (None: not a current session file)."""
    line = handle.readline(HEADER_LIMIT)
    if not line.endswith(b"\n"):
        return None
    header = json.loads(line)
    version = header.get("version") if isinstance(header, dict) else None
    if not (isinstance(header, dict) and header.get("type") == "session"):
        return None
    if not isinstance(header.get("id"), str) or isinstance(version, bool):
        return None
    if not isinstance(version, int) or version < CURRENT_SESSION_VERSION:
        return None  # an old format is migrated on load: ids would differ
    return len(line)


def _objects(data: bytes, whole: bool) -> Iterator[dict[str, Any]]:
    """The entries among ``data``'s lines (the first is cut unless ``whole``)."""
    lines = data.split(b"\n")
    for line in lines if whole else lines[1:]:
        if not line or line.isspace():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # torn or damaged: the loader reports it
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            continue
        if isinstance(obj.get("type"), str) and obj["type"] != "session":
            yield obj


class _Walk:
    """The walk from the last entry of ``data`` up its parent chain."""

    def __init__(self, data: bytes, whole: bool, max_messages: int) -> None:
        self.index: dict[str, dict[str, Any]] = {}
        for obj in _objects(data, whole):
            self.index[obj["id"]] = obj  # a later duplicate shadows, as in the loader
            self.leaf_id = obj["id"]
        self.newest_first: list[dict[str, Any]] = []
        self.done = False
        self.more = True  # until the walk reaches the start of the context
        if self.index:
            self._walk(whole, max_messages)

    def result(self) -> BranchTail | None:
        if not self.newest_first:
            return None
        return BranchTail(self.newest_first[::-1], self.leaf_id, self.more)

    def _walk(self, whole: bool, limit: int) -> None:
        out = self.newest_first
        kept: list[dict[str, Any]] = []  # entries a compaction kept (context order reversed)
        compaction: dict[str, Any] | None = None
        seen: set[str] = set()
        entry: dict[str, Any] | None = self.index[self.leaf_id]
        while entry is not None and entry["id"] not in seen and len(out) + len(kept) < limit:
            seen.add(entry["id"])
            if compaction is None and entry["type"] == "compaction":
                compaction = entry
                if not isinstance(entry.get("firstKeptEntryId"), str):
                    break  # nothing kept
            elif entry["type"] in _CONTEXT_TYPES:
                message = _message(entry)
                if message is not None:
                    (out if compaction is None else kept).append(message)
                if compaction is not None and entry["id"] == compaction["firstKeptEntryId"]:
                    break  # the rest was summarised
            elif compaction is not None and entry["id"] == compaction["firstKeptEntryId"]:
                break
            parent = entry.get("parentId")
            entry = self.index.get(parent) if isinstance(parent, str) else None
            if entry is None and isinstance(parent, str) and not whole:
                return  # the branch goes on above the bytes read: read more
        else:
            if entry is None and compaction is not None:
                kept.clear()  # the first kept entry is not on the path: nothing kept
        self.done = True
        out += kept
        if compaction is not None and len(out) < limit:
            out.append(_compaction_message(compaction))
        self.more = len(out) >= limit and (entry is not None or compaction is not None)


def _message(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The message an entry puts in the context (see ``context.entry_message``)."""
    kind = entry["type"]
    if kind == "message":
        message = entry.get("message")
        return message if isinstance(message, dict) else None
    if kind == "custom_message":
        message = {
            "role": "custom",
            "customType": entry.get("customType"),
            "content": entry.get("content"),
            "display": entry.get("display", True),
        }
        if "details" in entry:
            message["details"] = entry["details"]
        return message
    summary = entry.get("summary")
    if isinstance(summary, str) and summary:  # branch_summary: an empty one adds nothing
        return {"role": "branchSummary", "summary": summary, "fromId": entry.get("fromId")}
    return None


def _compaction_message(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "compactionSummary",
        "summary": entry.get("summary"),
        "tokensBefore": entry.get("tokensBefore", 0),
    }
