"""Build stream events on the hot path without pydantic validation.

An adapter pushes one event per SSE delta; validating each one (or going through
``model_construct``, which is slower still) costs several microseconds, more than
parsing the SSE line itself. Adapters create events only from values they built
themselves, so validation has nothing to catch: :func:`fast_event` fills the instance
the way ``model_construct`` does, minus the per-call field introspection, and
:func:`delta_factory` makes a builder for the one event shape a delta needs.

Both write the four instance slots of a pydantic model through their slot descriptors
(``object.__setattr__`` looks each descriptor up by name on every call).
:func:`delta_run` makes lazy runs of delta events, built only as the consumer reads
them; it fills the instance's own ``__dict__`` instead of replacing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel

from pitui.ai.events import TextDeltaEvent, ThinkingDeltaEvent, ToolCallDeltaEvent
from pitui.ai.own_model import fill_unvalidated, plain_defaults
from pitui.ai.types import AssistantMessage

E = TypeVar("E", bound=BaseModel)
D = TypeVar("D", bound=TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent)

_new = object.__new__
_slots = vars(BaseModel)
_set_fields_set: Callable[[BaseModel, set[str]], None] = _slots["__pydantic_fields_set__"].__set__
_set_extra: Callable[[BaseModel, dict[str, Any]], None] = _slots["__pydantic_extra__"].__set__
_set_private: Callable[[BaseModel, None], None] = _slots["__pydantic_private__"].__set__
_set_dict: Callable[[BaseModel, dict[str, Any]], None] = _slots["__dict__"].__set__


def fast_event(cls: type[E], **fields: Any) -> E:
    """An instance of ``cls`` holding ``fields`` (plus defaults), without validation.

    Equal to ``cls(**fields)`` for well-typed ``fields``; every field counts as set, as
    it does for an object built in code (see :class:`pitui.ai._base.PiModel`).
    """
    event = _new(cls)
    fill_unvalidated(event, fields)
    return event


def _delta_kind(cls: type[D]) -> str:
    """The ``type`` tag of a delta event class whose fields are the expected four."""
    names = tuple(cls.model_fields)
    if names != ("partial", "content_index", "type", "delta"):
        raise TypeError(f"{cls.__name__}: unexpected fields {names}")
    kind: str = plain_defaults(cls)["type"]
    return kind


def delta_factory(cls: type[D]) -> Callable[[AssistantMessage, int, str], D]:
    """A builder ``(partial, content_index, delta) -> cls`` for one delta event class.

    The same as :func:`fast_event` for these three fields, with the field names, their
    order (the class's, as validation would give) and the ``type`` tag fixed up front.
    """
    kind = _delta_kind(cls)
    new, set_dict, set_fields_set = _new, _set_dict, _set_fields_set
    set_extra, set_private = _set_extra, _set_private

    def build(partial: AssistantMessage, content_index: int, delta: str) -> D:
        event: D = new(cls)
        set_dict(
            event,
            {"partial": partial, "content_index": content_index, "type": kind, "delta": delta},
        )
        set_fields_set(event, {"partial", "content_index", "type", "delta"})
        set_extra(event, {})
        set_private(event, None)
        return event

    return build


def delta_run(cls: type[D]) -> Callable[[AssistantMessage, int, list[str]], Iterator[D]]:
    """A builder of lazy runs ``(partial, content_index, pieces) -> iterator of cls``.

    The iterator yields what :func:`delta_factory`'s builder makes of each piece, built
    only when it is read (see ``AssistantMessageEventStream.push_lazy``). ``pieces`` is
    read then, so the caller must not change it after handing the run over.
    """
    kind = _delta_kind(cls)
    new, set_fields_set, set_extra, set_private = _new, _set_fields_set, _set_extra, _set_private

    def run(partial: AssistantMessage, content_index: int, pieces: list[str]) -> Iterator[D]:
        # The builder's body inlined: a generator step is cheaper than a call per event.
        for delta in pieces:
            event: D = new(cls)
            # Filling the fresh instance dict costs less than setting a new one through
            # the slot descriptor (a call with an argument tuple).
            fields = event.__dict__
            fields["partial"] = partial
            fields["content_index"] = content_index
            fields["type"] = kind
            fields["delta"] = delta
            set_fields_set(event, {"partial", "content_index", "type", "delta"})
            set_extra(event, {})
            set_private(event, None)
            yield event

    return run
