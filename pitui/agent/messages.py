"""AgentMessage: the protocol messages plus app-registered custom messages.

pi extends its message union by TypeScript declaration merging; here a later layer calls
:func:`register_message_type` with a :class:`CustomAgentMessage` subclass for its role.
A role nobody registered loads as :class:`OpaqueMessage`: kept verbatim, never sent.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar, cast

from pydantic import TypeAdapter

from pitui.ai._base import LOAD_CONTEXT, PiModel
from pitui.ai.types import AssistantMessage, Message, ToolResultMessage, UserMessage


class CustomAgentMessage(PiModel):
    """Base of every non-protocol message. Subclasses fix ``role`` with a Literal."""

    role: str
    timestamp: int = 0


class OpaqueMessage(CustomAgentMessage):
    """A message of a role nobody registered: preserved through load and save, never sent."""


AgentMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | CustomAgentMessage
_F = TypeVar("_F", bound=Callable[..., Any])

_PROTOCOL_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)
_PROTOCOL_TYPE_SET: frozenset[type] = frozenset(_PROTOCOL_TYPES)
_PROTOCOL_ROLES = frozenset({"user", "assistant", "toolResult"})
_protocol_adapter: TypeAdapter[Message] | None = None
"""Built on the first message read from JSON (a new session reads none)."""
_registry: dict[str, type[CustomAgentMessage]] = {}


def register_message_type(role: str, cls: type[CustomAgentMessage]) -> None:
    """Register ``cls`` as the model of messages whose ``role`` is ``role``."""
    if role in _PROTOCOL_ROLES:
        raise ValueError(f"role {role!r} is a protocol role and cannot be re-registered")
    _registry[role] = cls


def registered_roles() -> frozenset[str]:
    """Custom roles registered so far."""
    return frozenset(_registry)


def parse_agent_message(data: dict[str, Any]) -> AgentMessage:
    """Validate a JSON object into the right AgentMessage type by its ``role``.

    The data is taken as read from a file or the wire: the object keeps exactly its keys.
    """
    role = data.get("role")
    if role.__class__ is str and role in _PROTOCOL_ROLES:  # not hashable if a list
        global _protocol_adapter
        if _protocol_adapter is None:
            _protocol_adapter = TypeAdapter(Message)
        return _protocol_adapter.validate_python(data, context=LOAD_CONTEXT)
    cls = _registry.get(role) if isinstance(role, str) else None
    if cls is not None:
        return cls.model_validate(data, context=LOAD_CONTEXT)
    return OpaqueMessage.model_validate(data, context=LOAD_CONTEXT)


def is_protocol_message(message: AgentMessage) -> bool:
    """True for user, assistant and toolResult messages."""
    return isinstance(message, _PROTOCOL_TYPES)


_CONVERTERS_LEAVING_INPUT_ALONE: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


def leaves_input_alone(convert: _F) -> _F:
    """Declare that ``convert`` (a ``convert_to_llm``) never changes the messages it is
    given, nor the ones it returns as they are: the loop then gives it the transcript
    itself instead of a deep copy (copying a 25,000-message transcript before a request
    costs ~0.3 s and ~70 MB). Returns ``convert``, so it can decorate it."""
    _CONVERTERS_LEAVING_INPUT_ALONE.add(convert)
    return convert


def is_leaving_input_alone(convert: Callable[..., Any]) -> bool:
    """Whether ``convert`` was declared with :func:`leaves_input_alone`."""
    try:
        return convert in _CONVERTERS_LEAVING_INPUT_ALONE
    except TypeError:  # not weak-referenceable (a builtin, a partial): not declared
        return False


@leaves_input_alone
def default_convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """pi's default converter: keep only user / assistant / toolResult messages."""
    # Exact-type test first: isinstance() on pydantic classes goes through ABCMeta and
    # this runs over the whole transcript before every model call.
    kept = [m for m in messages if type(m) in _PROTOCOL_TYPE_SET or isinstance(m, _PROTOCOL_TYPES)]
    return cast(list[Message], kept)
