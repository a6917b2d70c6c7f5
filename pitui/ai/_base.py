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
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel

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

LOADING = "pitui.loading"
#: Validation context for data read from a file or the wire: keep exactly its keys.
LOAD_CONTEXT: dict[str, Any] = {LOADING: True}


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
