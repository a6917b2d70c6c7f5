"""Immutable records whose methods are not generated: a stand-in for frozen dataclasses.

``@dataclass(frozen=True, slots=True)`` writes ``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__`` and ``__delattr__`` as source text, compiles each when the
class is created and then builds the class a second time for its slots: ~4 M
instructions a class. The dozen view-model item classes alone cost as much as a bare
Textual app's whole first frame, on every start that shows a notice (issue 26). A
:class:`Record` subclass gets the same behaviour from methods written once, here; only
its ``__init__`` is compiled, on its first instance (straight-line, as fast as a
dataclass's), so a class that is never made costs nothing.

A subclass lists its fields as annotations, fields with a default (a value, or
``field(default_factory=…)``) after those without, as a dataclass does; no base but
:class:`Record`.
It is a dataclass to :mod:`dataclasses` too (``replace``, ``fields``, ``asdict``,
``is_dataclass`` work) and to type checkers (``dataclass_transform``): equality and
hashing by field values, a dataclass's ``repr``, ``FrozenInstanceError`` on assignment,
``__match_args__``, slots, copy and pickle.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, cast, dataclass_transform

from pitui.compile_cache import generated_code

_FIELD_KIND = dataclasses._FIELD  # type: ignore[attr-defined]  # what fields() lists


def _plain(made: dataclasses.Field[Any]) -> bool:
    """A ``field()`` that sets nothing but its default factory."""
    return made.init and made.repr and made.compare and made.hash is None and not made.metadata


def _dataclass_field(
    name: str, annotation: object, default: object, factory: object
) -> dataclasses.Field[Any]:
    made: dataclasses.Field[Any] = (
        dataclasses.field(default=cast(Any, default))
        if factory is dataclasses.MISSING
        else dataclasses.field(default_factory=cast(Any, factory))
    )
    made.name = name
    made.type = annotation
    made._field_type = _FIELD_KIND  # type: ignore[attr-defined]
    return made


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[object, ...]]:
    """The field values of a record as a tuple (``attrgetter``: C speed, for eq and hash)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return lambda record: ()


@dataclass_transform(frozen_default=True)
class _RecordMeta(type):
    """Turns the class body's annotations into slots, defaults and dataclass fields."""

    def __new__(
        mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> _RecordMeta:
        if not bases:  # Record itself
            return super().__new__(mcs, name, bases, namespace, **kwargs)
        if bases != (Record,):
            raise TypeError(f"{name}: a Record derives from Record alone")
        annotations: dict[str, object] = namespace.get("__annotations__", {})
        names = tuple(
            field
            for field, annotation in annotations.items()
            if not str(annotation).startswith(("ClassVar", "typing.ClassVar"))
        )
        defaults: dict[str, object] = {}
        factories: dict[str, Callable[[], object]] = {}
        for field in names:
            if field not in namespace:
                if defaults or factories:
                    raise TypeError(f"{name}: field {field!r} without a default follows one with")
                continue
            default = namespace.pop(field)
            if not isinstance(default, dataclasses.Field):
                defaults[field] = default
            elif default.default_factory is not dataclasses.MISSING and _plain(default):
                factories[field] = default.default_factory
            else:
                raise TypeError(f"{name}.{field}: a Record field takes a default or a factory")
        namespace["__slots__"] = names
        namespace["__match_args__"] = names
        namespace["_fields"] = names
        namespace["_defaults"] = defaults
        namespace["_factories"] = factories
        namespace["_values_of"] = _values_getter(names)
        namespace["__dataclass_fields__"] = {
            field: _dataclass_field(
                field,
                annotations[field],
                defaults.get(field, dataclasses.MISSING),
                factories.get(field, dataclasses.MISSING),
            )
            for field in names
        }
        return super().__new__(mcs, name, bases, namespace, **kwargs)


class Record(metaclass=_RecordMeta):
    """Base of the immutable records (see the module docstring)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, object]] = {}
    _factories: ClassVar[dict[str, Callable[[], object]]] = {}
    _values_of: ClassVar[Callable[[Record], tuple[object, ...]]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The first instance of a class compiles its straight-line __init__ (as fast as a
        # dataclass's: a replayed transcript makes thousands of items) and uses it from
        # then on; a class that is never instantiated costs no compilation.
        init = _compile_init(type(self))
        init(self, *args, **kwargs)

    def _values(self) -> tuple[object, ...]:
        return type(self)._values_of(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{field}={getattr(self, field)!r}" for field in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[object, ...]:
        return self._values()

    def __setstate__(self, state: tuple[object, ...]) -> None:
        for field, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, field, value)


_SELF = "__record_self__"


def _compile_init(cls: type[Record]) -> Callable[..., None]:
    """Install ``cls``'s own ``__init__``: its fields as parameters, in order, with their
    defaults, each set with ``object.__setattr__`` (the class is frozen)."""
    names = cls._fields  # annotations: identifiers, safe to write into the source
    params, body = [_SELF], []
    namespace: dict[str, object] = {"_set": object.__setattr__, "_MISSING": dataclasses.MISSING}
    for name in names:
        if name in cls._defaults:
            namespace[f"_default_{name}"] = cls._defaults[name]
            params.append(f"{name}=_default_{name}")
            body.append(f"    _set({_SELF}, {name!r}, {name})")
        elif name in cls._factories:
            namespace[f"_factory_{name}"] = cls._factories[name]
            params.append(f"{name}=_MISSING")
            value = f"_factory_{name}() if {name} is _MISSING else {name}"
            body.append(f"    _set({_SELF}, {name!r}, {value})")
        else:
            params.append(name)
            body.append(f"    _set({_SELF}, {name!r}, {name})")
    source = f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "    pass")
    exec(generated_code(source), namespace)  # generated from the class's own field names
    init = cast("Callable[..., None]", namespace["__init__"])
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010  (a method assignment mypy would refuse)
    return init
