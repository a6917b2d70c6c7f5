"""Tool schemas as they go on the wire: self-contained, every reference written out.

pydantic (and other schema generators) share sub-schemas through ``$defs`` and
``{"$ref": "#/$defs/Name"}``. Not every server resolves references: llama.cpp's
``llama-server`` rejects the whole request (``cannot resolve $ref``), and the Anthropic
adapter forwards only ``properties``/``required``, which would cut the ``$defs`` off
anyway. pi's schemas (TypeBox) never contain references, so every adapter sends
:func:`self_contained` schemas.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

_DEF_KEYS = ("$defs", "definitions")


def self_contained(schema: Json) -> Json:
    """``schema`` with every local ``$ref`` replaced by its target and ``$defs`` dropped.

    A schema without references is returned as it is (the same object). Otherwise the
    result is a new dict; the input is not changed. A recursive reference cannot be
    written out: from its second occurrence on a chain it becomes ``{}`` (any value),
    and so does a reference that does not point into the schema's own definitions.
    """
    if not _has_reference(schema):
        return schema
    out = _inline(schema, schema, ())
    assert isinstance(out, dict)
    for key in _DEF_KEYS:
        out.pop(key, None)
    return out


def _has_reference(node: Any) -> bool:
    if isinstance(node, dict):
        if "$ref" in node or any(key in node for key in _DEF_KEYS):
            return True
        return any(_has_reference(value) for value in node.values())
    if isinstance(node, list):
        return any(_has_reference(value) for value in node)
    return False


def _inline(node: Any, root: Json, chain: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(value, root, chain) for value in node]
    if not isinstance(node, dict):
        return node
    node = _unwrap_single_all_of(node)
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _target(root, ref)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if target is None or ref in chain:
            return _inline(siblings, root, chain)
        merged = {**target, **siblings}  # a sibling (e.g. a description) wins
        return _inline(merged, root, (*chain, ref))
    return {key: _inline(value, root, chain) for key, value in node.items() if key not in _DEF_KEYS}


def _unwrap_single_all_of(node: Json) -> Json:
    """``{"allOf": [{"$ref": …}], "description": …}`` (older pydantic) → a plain ``$ref``."""
    parts = node.get("allOf")
    if not (isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict)):
        return node
    if "$ref" not in parts[0] or "$ref" in node:
        return node
    rest = {k: v for k, v in node.items() if k != "allOf"}
    return {**rest, **parts[0]}


def _target(root: Json, ref: str) -> Json | None:
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, dict) else None
