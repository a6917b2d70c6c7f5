"""The view of a transcript's messages read as JSON: the first view of a session resumed.

A long session takes a while to load (parse, validate, index every line); its last
messages, read from the end of the file (:mod:`pitui.core.session.tail`), are shown
first. They are still JSON at that point, and loading the models to validate a few of
them would cost more than showing them: this reader feeds the JSON to the same builder
as :func:`~pitui.ui.view.replay.state_from_messages`, so the items are the ones the
loaded session shows (``tests/ui/test_replay_json.py`` checks it).

It reads strictly: a message that is not shaped as its role says (one the models would
reject, or coerce) raises ValueError, and the caller shows nothing early rather than
something the loaded session would not show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pitui.ui.view import items
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.replay_state import Replay

_CUSTOM_ROLES = frozenset(items.CUSTOM_BUILDERS)


def state_from_json(messages: Iterable[Mapping[str, Any]]) -> ChatState:
    """The view of these messages (JSON objects as pi writes them).

    Raises:
        ValueError: A message is not shaped as its role requires.
    """
    replay = Replay()
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            _assistant(replay, message)
        elif role == "user":
            replay.user(*_user_text(message.get("content")))
        elif role == "toolResult":
            _tool_result(replay, message)
        elif isinstance(role, str) and role in _CUSTOM_ROLES:
            replay.custom(dict(message))
        elif not isinstance(role, str):
            raise ValueError("a message without a role")
        # else: a role nobody registered: kept in the file, never shown
    return replay.state()


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"malformed message: {what}")


def _str(value: Any, what: str) -> str:
    _check(isinstance(value, str), what)
    return str(value)


def _blocks(content: Any, kinds: frozenset[str]) -> list[Mapping[str, Any]]:
    _check(isinstance(content, list), "content is not a list")
    for block in content:
        _check(isinstance(block, dict) and block.get("type") in kinds, "content block")
        kind = block["type"]
        field = {"text": "text", "thinking": "thinking"}.get(kind)
        _check(field is None or isinstance(block.get(field), str), f"{kind} block")
    return content  # type: ignore[no-any-return]


_USER_BLOCKS = frozenset({"text", "image"})
_ASSISTANT_BLOCKS = frozenset({"text", "thinking", "toolCall"})


def _user_text(content: Any) -> tuple[str, int]:
    if isinstance(content, str):
        return content, 0
    blocks = _blocks(content, _USER_BLOCKS)
    images = sum(1 for b in blocks if b["type"] == "image")
    return items.blocks_text(blocks), images


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _assistant(replay: Replay, message: Mapping[str, Any]) -> None:
    blocks = _blocks(message.get("content", []), _ASSISTANT_BLOCKS)
    stop, error = message.get("stopReason", "stop"), message.get("errorMessage")
    timestamp = message.get("timestamp", 0)
    _check(isinstance(stop, str) and (error is None or isinstance(error, str)), "stop reason")
    _check(_int(timestamp), "timestamp")
    usage = message.get("usage", {})
    _check(isinstance(usage, dict), "usage")
    mid = replay.next_id()
    has_calls = False
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            replay.text(mid, index, block["text"])
        elif kind == "thinking":
            replay.thinking(mid, index, block["thinking"])
        else:
            arguments = block.get("arguments", {})
            _check(isinstance(arguments, dict), "tool call arguments")
            has_calls = True
            call_id = _str(block.get("id"), "tool call id")
            replay.call(mid, call_id, _str(block.get("name"), "tool name"), arguments)
    usage_totals = replay.usage.plus_json(message)
    replay.assistant_end(mid, usage_totals, timestamp, stop, error, has_calls)


def _tool_result(replay: Replay, message: Mapping[str, Any]) -> None:
    call_id = _str(message.get("toolCallId"), "tool result id")
    name = _str(message.get("toolName"), "tool result name")
    is_error = message.get("isError", False)
    _check(isinstance(is_error, bool), "tool result isError")
    blocks = _blocks(message.get("content", []), _USER_BLOCKS)
    details = message.get("details")
    state = items.result_state_of(is_error, details)
    replay.tool_result(call_id, name, state, items.blocks_text(blocks), details)
