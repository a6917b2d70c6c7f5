"""A fast ``dataclasses.replace`` for the view model's frozen, slotted dataclasses.

The reducer copies ChatState several times per event, and a resumed session replays every
message through it; ``dataclasses.replace`` (field introspection, keyword arguments, a
generated ``__init__``) was the largest cost of rebuilding a long transcript's view.
The view-model classes have no ``__post_init__``, so copying the slots is equivalent.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")
_FIELDS: dict[type, tuple[str, ...]] = {}


def replace(obj: T, /, **changes: Any) -> T:
    """``obj`` with ``changes`` applied (like :func:`dataclasses.replace`)."""
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        if not hasattr(cls, "__slots__") or hasattr(cls, "__post_init__"):
            return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    unknown = changes.keys() - set(names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
    new = object.__new__(cls)
    setter = object.__setattr__
    for name in names:
        setter(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
