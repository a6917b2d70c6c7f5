"""Say why an entry does not fit its type, in the file's own field names.

pydantic's text for a failed entry starts ``2 validation errors for
tagged-union[MessageEntry,ThinkingLevelChangeEntry,…]`` and its locations carry the
union's tags (``message.message.user.content.str``). The user needs the field as it is
written in the file (``message.content``) and what is wrong with it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails


def describe_invalid(raw: dict[str, Any], exc: ValidationError) -> str:
    """``message.content: must be a valid string or a valid list`` — a clause per field."""
    problems: dict[str, list[str]] = {}
    for error in exc.errors():
        path = _file_path(raw, error)
        messages = problems.setdefault(path or "(entry)", [])
        text = _short(error)
        if text not in messages:
            messages.append(text)
    return "; ".join(f"{path}: {_either(texts)}" for path, texts in problems.items())


def _either(texts: list[str]) -> str:
    """``must be a valid string`` + ``must be a valid list`` → ``must be a valid string or
    a valid list`` (a union's alternatives)."""
    lead = "must be "
    if len(texts) > 1 and all(t.startswith(lead) for t in texts):
        return lead + " or ".join(t[len(lead) :] for t in texts)
    return "; ".join(texts)


def _file_path(raw: dict[str, Any], error: ErrorDetails) -> str:
    """The location with the union tags left out: only keys and indexes the file has."""
    node: Any = raw
    parts: list[str] = []
    loc = list(error["loc"])
    if loc and loc[0] in (raw.get("type"), "unknown"):
        # The entry union's tag: ``message.timestamp`` would name the message's field.
        loc = loc[1:]
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            parts.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            parts.append(f"[{part}]")
            node = node[part]
        elif last and error["type"] == "missing" and isinstance(part, str):
            parts.append(part)
        # else: a tag of a tagged union or a type name (``str``, ``list[…]``): not in the file
    return ".".join(parts).replace(".[", "[")


def _short(error: ErrorDetails) -> str:
    """pydantic's message, lower-cased and without its ``Input should be`` preamble."""
    if error["type"] == "missing":
        return "required"
    message = error["msg"]
    if message.startswith("Input should be "):
        message = "must be " + message.removeprefix("Input should be ")
    message = message.removeprefix("Value error, ")
    return message[:1].lower() + message[1:]
