"""Session format migration v1 → v2 → v3, exactly as pi does it (PI_SPEC §5.6).

Works on the parsed JSON objects of a file (header included, in file order) and mutates
them in place, so keys keep pi's order: new keys (``id``, ``parentId``, ``version``,
``firstKeptEntryId``) are appended after the existing ones, as JavaScript does.
"""

from __future__ import annotations

from typing import Any

from pitui.core.session.ids import CURRENT_SESSION_VERSION, new_entry_id


def file_version(objects: list[dict[str, Any]]) -> int:
    """The format version of a file: its first header's ``version``, 1 when absent."""
    for obj in objects:
        if obj.get("type") == "session":
            version = obj.get("version")
            if isinstance(version, int | float) and not isinstance(version, bool):
                return int(version)
            return 1
    return 1


def _v1_to_v2(objects: list[dict[str, Any]]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for obj in objects:
        if obj.get("type") == "session":
            obj["version"] = 2
            continue
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        obj["id"] = entry_id
        obj["parentId"] = previous
        previous = entry_id
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            index = obj["firstKeptEntryIndex"]
            if isinstance(index, int) and not isinstance(index, bool):
                # pi indexes the parsed objects of the file, header included.
                target = objects[index] if 0 <= index < len(objects) else None
                if target is not None and target.get("type") != "session":
                    obj["firstKeptEntryId"] = target.get("id")
                del obj["firstKeptEntryIndex"]


def _v2_to_v3(objects: list[dict[str, Any]]) -> None:
    for obj in objects:
        if obj.get("type") == "session":
            obj["version"] = CURRENT_SESSION_VERSION
            continue
        message = obj.get("message")
        if obj.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") == "hookMessage":
            message["role"] = "custom"


def migrate_objects(objects: list[dict[str, Any]]) -> int | None:
    """Bring a file's objects to the current version in place.

    Returns:
        The version migrated from, or None when the file was already current.
    """
    version = file_version(objects)
    if version >= CURRENT_SESSION_VERSION:
        return None
    if version < 2:
        _v1_to_v2(objects)
    _v2_to_v3(objects)
    return version
