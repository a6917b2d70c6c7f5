"""Which files a stretch of conversation read and changed (PI_SPEC §6.6).

Only assistant tool calls named exactly ``read``, ``write`` and ``edit`` with a non-empty
string ``path`` count. The lists keep pi's order: insertion order while collecting, JS
default sort (UTF-16 code units) in the stored lists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pitui.agent.messages import AgentMessage
from pitui.ai.types import AssistantMessage, ToolCall
from pitui.core.compaction.jsjson import utf16_sort_key


@dataclass
class FileOperations:
    """Paths seen, per operation, in first-seen order (dicts used as ordered sets)."""

    read: dict[str, None] = field(default_factory=dict)
    written: dict[str, None] = field(default_factory=dict)
    edited: dict[str, None] = field(default_factory=dict)

    def add(self, tool: object, path: object) -> None:
        """Record one tool call (ignored unless read/write/edit with a non-empty path)."""
        if not isinstance(path, str) or not path:
            return
        if tool == "read":
            self.read[path] = None
        elif tool == "write":
            self.written[path] = None
        elif tool == "edit":
            self.edited[path] = None

    def seed(self, details: object) -> None:
        """Start from an earlier summary's ``details``: readFiles → read, modified → edited."""
        if not isinstance(details, dict):
            return
        read, modified = details.get("readFiles"), details.get("modifiedFiles")
        for path in read if isinstance(read, list) else ():
            if isinstance(path, str):
                self.read[path] = None
        for path in modified if isinstance(modified, list) else ():
            if isinstance(path, str):
                self.edited[path] = None

    def to_json(self) -> dict[str, list[str]]:
        """``{"read", "written", "edited"}`` in insertion order."""
        return {"read": list(self.read), "written": list(self.written), "edited": list(self.edited)}


def extract_from_message(message: AgentMessage, ops: FileOperations) -> None:
    """Add the file operations of an assistant message's tool calls."""
    if isinstance(message, AssistantMessage):
        for block in message.content:
            if isinstance(block, ToolCall):
                ops.add(block.name, block.arguments.get("path"))


def extract_from_raw(message: Mapping[str, Any], ops: FileOperations) -> None:
    """:func:`extract_from_message` for a message given as its JSON object."""
    if message.get("role") != "assistant":
        return
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall":
            arguments = block.get("arguments")
            if isinstance(arguments, dict):
                ops.add(block.get("name"), arguments.get("path"))


def _js_sorted(paths: Iterable[str]) -> list[str]:
    return sorted(paths, key=utf16_sort_key)


def compute_file_lists(ops: FileOperations) -> tuple[list[str], list[str]]:
    """(readFiles, modifiedFiles): read-only files and edited ∪ written files, sorted."""
    modified = {**ops.edited, **ops.written}
    read_only = _js_sorted(p for p in ops.read if p not in modified)
    return read_only, _js_sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The ``<read-files>`` / ``<modified-files>`` block appended to a summary ("" if none)."""
    sections: list[str] = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


# Every ``"toolCall"`` token of the text (a JSON string token: inside a string its quotes
# would be escaped), with, when it starts a block head as JSON.stringify writes it (pi's
# session lines: ``type, id, name, arguments``), the name and a leading ``path`` argument.
# The id is matched but not captured, so the captures of a session's calls repeat and fold
# into a few distinct ones. Strings are matched up to their first quote (``[^"]*`` runs a
# tight loop in the regex engine, a class with a backslash does not): in valid JSON, the
# quote that ends the id or the name is then their real end, since the text after it must
# be ``,"``; the path's is checked after (an odd run of backslashes before it escapes it).
_CALL = re.compile(
    rb'Call"(?<="toolCall")(?:(?<="type":"toolCall"),"id":"[^"]*","name":"'
    rb'([^"]*","arguments":(?:\{"path":"[^"]*"[,}])?))?'
)
_ARGUMENTS = b'","arguments":'
_PATH_HEAD = len(b'{"path":"')
_TRACKED = {b"read", b"write", b"edit"}


def _fast_calls(joined: bytes) -> list[tuple[bytes, bytes]] | None:
    """Distinct (name, path) of the read/write/edit calls, first-seen order, if the text is
    in pi's exact layout; None otherwise.

    Holds when every ``"toolCall"`` token starts a block head with an unescaped name and
    every read/write/edit call has ``path`` first. The search runs in C; only distinct
    captures reach Python.
    """
    calls: list[tuple[bytes, bytes]] = []
    for capture in dict.fromkeys(_CALL.findall(joined)):
        if not capture:
            return None  # a "toolCall" token that is not a block head as pi writes it
        name, _, arguments = capture.partition(_ARGUMENTS)
        if b"\\" in name:
            return None  # an escaped name may read as a tracked one
        if name in _TRACKED:
            if not arguments:
                return None  # the path may come later in the arguments
            path = arguments[_PATH_HEAD:-2]
            if (len(path) - len(path.rstrip(b"\\"))) % 2:
                return None  # the quote after the path is escaped: not its end
            calls.append((name, path))
    return calls


def extract_from_joined(joined: bytes, lines: Iterable[bytes], ops: FileOperations) -> None:
    """:func:`extract_from_raw` for assistant messages given as their session-file lines.

    Args:
        joined: The lines (valid JSON) joined with newlines.
        lines: The same lines (parsed one by one when they are not in pi's layout).
        ops: Where the operations are added.
    """
    calls = _fast_calls(joined)
    if calls is None:
        for line in lines:
            entry = json.loads(line.decode("utf-8", "replace"))
            message = entry.get("message") if isinstance(entry, dict) else None
            if isinstance(message, dict):
                extract_from_raw(message, ops)
        return
    targets = {b"read": ops.read, b"write": ops.written, b"edit": ops.edited}
    for name, path in calls:
        if path:
            # Bad UTF-8 reads as the line parser reads it (replacement characters).
            text = path.decode("utf-8", "replace")
            targets[name][json.loads(f'"{text}"') if "\\" in text else text] = None


def extract_from_lines(lines: list[bytes], ops: FileOperations) -> None:
    """:func:`extract_from_joined` of lines not yet joined."""
    extract_from_joined(b"\n".join(lines), lines, ops)
