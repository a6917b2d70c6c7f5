"""The pydantic base class every on-disk / on-the-wire pi object derives from.

pi writes camelCase JSON, omits optional fields that are unset, and its files carry
stray fields (``partialJson`` …) that a reader must keep. This base makes all three hold:
aliases are generated in camelCase, unknown keys are preserved as extras, and an
optional field that was never set is left out of the dump (an explicit ``null`` that
was read from a file is written back as ``null``).
"""

from __future__ import annotations

import sys
import types
from functools import cache
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel as _to_camel

to_camel = cache(_to_camel)
"""pydantic's ``to_camel``, remembered per name: the alias generator runs for every field of
every model (three regular-expression calls each) and most field names recur."""

_PLUGIN_LOADER = "pydantic.plugin._loader"


def _no_plugin_search() -> None:
    """Answer pydantic's plugin search with "none", before the first model is built.

    pydantic looks for plugins (entry points of every installed distribution) when the
    first model is built: ~80 M instructions, 6% of a `pitui -p` turn, more with a larger
    environment; and merely importing its loader imports ``importlib.metadata`` (with
    ``email``, ``zipfile``, ``csv`` …: ~75 M more). pitui's models are its own wire format,
    not a library's: no validation plugin is meant to watch them. So when the loader is not
    loaded yet, a stand-in takes its place whose ``get_plugins`` finds none (the loader's
    only function pydantic calls); when it is, its cache is set to "none found".
    """
    loader = sys.modules.get(_PLUGIN_LOADER)
    if loader is not None:
        if getattr(loader, "_plugins", ...) is None:
            loader._plugins = {}  # type: ignore[attr-defined]
        return
    stand_in = types.ModuleType(_PLUGIN_LOADER, "pitui: pydantic plugins are not searched.")
    stand_in.__dict__.update(
        get_plugins=lambda: (),
        _plugins={},
        _loading_plugins=False,
        PYDANTIC_ENTRY_POINT_GROUP="pydantic",
    )
    sys.modules[_PLUGIN_LOADER] = stand_in


_no_plugin_search()

#: The config of a model a run may never use (an event of a rare situation, a message
#: kind a session may not hold): its validator is built on first use, not at import.
#: Only for models no other model's fields name — those would build it inline anyway.
ON_FIRST_USE = ConfigDict(defer_build=True)


def empty_list() -> list[Any]:
    """A field's ``default_factory`` for an empty list (``Field(default_factory=empty_list)``).

    The same as ``list``, but pydantic reads a Python function's signature directly, while a
    builtin's is parsed from its text signature with :mod:`tokenize`, whose pattern compiles
    once per process: ~14 M instructions of a ``pitui -p`` turn.
    """
    return []


LOADING = "pitui.loading"
#: Validation context for data read from a file or the wire: keep exactly its keys.
LOAD_CONTEXT: dict[str, Any] = {LOADING: True}

_shared_fields: dict[frozenset[str], frozenset[str]] | None = None
"""When on (:func:`share_loaded_fields`): one frozen set per distinct set of field names."""


def share_loaded_fields() -> None:
    """From now on, models read from a file or the wire share their set of set fields.

    pydantic gives every model object its own set of the fields it was given: ~500 bytes,
    half of a small model's memory, and a resumed 10,000-message session holds ~40,000
    models (22 MB of sets, nearly all alike). A long-lived process (the TUI) turns this
    on; a short one (print mode, ``session context``) skips the ~0.4 µs a model it costs.
    A shared set is frozen: assigning to the model (or copying it) gives it its own again.
    No extra keys are held as None rather than an empty dict (pydantic's own "none"), and
    private attributes that are all None as one dict per class (copied on write too).
    """
    global _shared_fields
    if _shared_fields is None:
        _shared_fields = {}


_set_private: Any = vars(BaseModel)["__pydantic_private__"].__set__
_shared_private: dict[type[BaseModel], dict[str, Any]] = {}
"""Per model class, the one dict of private attributes its loaded objects share while all
of them are None (a :class:`~pitui.ai.types.ToolCall`'s, ~180 bytes each otherwise)."""


def share_loaded_private(model: BaseModel, context: Any) -> None:
    """From a model's ``model_post_init``: when it was read from a file or the wire and
    sharing is on, its private attributes, if all None, become its class's shared dict.
    Only models with private attributes call it (the check would cost every model)."""
    if _shared_fields is None or not (isinstance(context, dict) and context.get(LOADING)):
        return
    private = model.__pydantic_private__
    if not private:
        return
    shared = _shared_private.get(type(model))
    if shared is None:  # the first: it becomes the shared one if all its values are None
        if all(value is None for value in private.values()):
            _shared_private[type(model)] = private
    elif private == shared:  # the same keys, all None (in C: no loop here)
        _set_private(model, shared)


def loaded_fields_shared() -> bool:
    """Whether :func:`share_loaded_fields` was called (a long-lived process: readers of
    files may spend a little time to keep what they load small)."""
    return _shared_fields is not None


def shares_fields(model: BaseModel) -> bool:
    """Whether ``model`` holds a shared (frozen) set of set fields."""
    fields: set[str] | frozenset[str] = model.__pydantic_fields_set__
    return type(fields) is frozenset


def _own_fields(model: BaseModel) -> None:
    """Give ``model`` a set (and private attributes) of its own, before pydantic changes
    it (copy on write)."""
    if shares_fields(model):
        object.__setattr__(model, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
        if model.__pydantic_extra__ is None:
            object.__setattr__(model, "__pydantic_extra__", {})
    private = model.__pydantic_private__
    if private is not None and private is _shared_private.get(type(model)):
        object.__setattr__(model, "__pydantic_private__", dict(private))


class PiModel(BaseModel):
    """Base for pi's JSON objects: camelCase, extras kept, unset optionals absent.

    An object built in code dumps every field that holds a value (defaults included);
    an object read from JSON dumps exactly the keys it was read with (plus any assigned
    later), so a pi file round-trips to equal JSON.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
    )

    def model_post_init(self, context: Any, /) -> None:
        if isinstance(context, dict) and context.get(LOADING):
            shared = _shared_fields
            if shared is not None:
                key = frozenset(self.__pydantic_fields_set__)
                object.__setattr__(self, "__pydantic_fields_set__", shared.setdefault(key, key))
                if not self.__pydantic_extra__:  # pydantic treats None as no extras
                    object.__setattr__(self, "__pydantic_extra__", None)
            return
        # Built in code: defaults are real values and belong in the JSON, while an
        # optional field left at None is absent (pi omits undefined), even if passed
        # explicitly. A required field that is None (``parentId``) stays, as null.
        fields_set = self.__pydantic_fields_set__
        for name, info in type(self).model_fields.items():
            if getattr(self, name) is not None:
                fields_set.add(name)
            elif not info.is_required():
                fields_set.discard(name)

    def __setattr__(self, name: str, value: Any) -> None:
        _own_fields(self)
        super().__setattr__(name, value)

    def __copy__(self) -> Self:
        copied = super().__copy__()
        _own_fields(copied)  # model_copy(update=…) adds to it
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        copied = super().__deepcopy__(memo)
        _own_fields(copied)
        return copied

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            fields_set = self.__pydantic_fields_set__
            for name, field in type(self).model_fields.items():
                if name not in fields_set:
                    data.pop(field.alias or name, None)
        return data

    @classmethod
    def load(cls, data: Any) -> Self:
        """Validate JSON data read from pi (a file or the wire), keeping its exact keys."""
        return cls.model_validate(data, context=LOAD_CONTEXT)

    def to_json_dict(self) -> dict[str, Any]:
        """The object as pi writes it (camelCase keys, JSON-compatible values)."""
        dumped: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        return dumped
