"""Models only pitui's own code builds: made without validation, validators on first use.

Events (a stream's, the agent loop's) are made by pitui from values it typed itself —
an ``AssistantMessage`` it holds, a tool call id it read — and are never parsed from
outside on the hot path. Validating them catches nothing mypy has not (the pydantic
plugin still checks every constructor call's fields), yet it needs their validators,
which each embed the whole message schema: building them at import was ~30 M
instructions of a ``pitui -p`` turn. An :class:`OwnModel` is therefore deferred
(``defer_build``) and its constructor fills the instance as ``model_construct`` does:
every given field and every default counts as set, as for any object built in code.
Reading one from JSON (``model_validate``, a ``TypeAdapter``) still validates, building
the validator then; dumping builds the serializer on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from pitui.ai._base import ON_FIRST_USE, PiModel

_slots = vars(BaseModel)
_set_dict: Callable[[BaseModel, dict[str, Any]], None] = _slots["__dict__"].__set__
_set_fields_set: Callable[[BaseModel, set[str]], None] = _slots["__pydantic_fields_set__"].__set__
_set_extra: Callable[[BaseModel, dict[str, Any]], None] = _slots["__pydantic_extra__"].__set__
_set_private: Callable[[BaseModel, None], None] = _slots["__pydantic_private__"].__set__

_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}


def plain_defaults(cls: type[BaseModel]) -> dict[str, Any]:
    """The defaults of ``cls``'s optional fields (all plain values: no factories)."""
    found = _DEFAULTS.get(cls)
    if found is None:
        if any(field.default_factory is not None for field in cls.model_fields.values()):
            raise TypeError(f"{cls.__name__}: built unvalidated, it needs plain defaults")
        found = {
            name: field.default
            for name, field in cls.model_fields.items()
            if not field.is_required()
        }
        _DEFAULTS[cls] = found
    return found


def fill_unvalidated(instance: BaseModel, fields: dict[str, Any]) -> None:
    """Give a fresh ``instance`` these ``fields`` plus its defaults, all counted as set."""
    values = {**(_DEFAULTS.get(type(instance)) or plain_defaults(type(instance))), **fields}
    set_unvalidated(instance, values, set(values))


def set_unvalidated(instance: BaseModel, values: dict[str, Any], fields_set: set[str]) -> None:
    """Store in a fresh ``instance`` exactly what validating ``values`` would (all of its
    fields, in order; no extras, no private attributes), ``fields_set`` counted as set.

    The four instance slots are written through their descriptors (``object.__setattr__``
    would look each one up by name on every call).
    """
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set)
    _set_extra(instance, {})
    _set_private(instance, None)


class OwnModel(PiModel):
    """Base of a model only pitui builds (see the module's docstring)."""

    model_config = ON_FIRST_USE

    def __init__(self, **fields: Any) -> None:
        # In the class's field order, as validation would store them.
        defaults = _DEFAULTS.get(type(self)) or plain_defaults(type(self))
        names = type(self).model_fields
        try:
            values = {name: fields[name] if name in fields else defaults[name] for name in names}
        except KeyError as exc:
            raise TypeError(f"{type(self).__name__}: missing field {exc.args[0]!r}") from None
        if len(values) != len(fields.keys() | values.keys()):
            unknown = sorted(fields.keys() - names.keys())
            raise TypeError(f"{type(self).__name__}: unknown fields {unknown}")
        _set_dict(self, values)
        _set_fields_set(self, set(values))
        _set_extra(self, {})
        _set_private(self, None)
