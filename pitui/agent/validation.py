"""Tool-argument validation with pydantic, behaving like pi's AJV setup (PI_SPEC §3.9).

pi validates with AJV (``allErrors``, ``coerceTypes: true``) on a deep copy and reports
failures as one text the model reads. Here a schema-guided pass first applies AJV's
coercions that pydantic's lax mode lacks (number/boolean/null → string, null → 0/false),
then the tool's pydantic model validates; its errors are rewritten in AJV's words.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from pitui.agent.tool import AgentTool
from pitui.ai.types import ToolCall

_FAIL = object()
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


class ToolArgumentsError(Exception):
    """Arguments that do not fit the tool's schema; the message is pi's exact text."""


def validate_tool_arguments(tool: AgentTool, tool_call: ToolCall) -> BaseModel:
    """Coerce and validate ``tool_call.arguments`` for ``tool``.

    Returns:
        An instance of ``tool.parameters`` built from a coerced deep copy; the tool call's
        own arguments are left untouched.

    Raises:
        ToolArgumentsError: with ``Validation failed for tool "<name>": …`` (PI_SPEC §3.9).
    """
    schema = tool.parameters_schema()
    args = coerce_like_ajv(copy.deepcopy(tool_call.arguments), schema, schema)
    try:
        return _validate(tool.parameters, args)
    except ValidationError as exc:
        errors = exc.errors()
    # AJV tries a nullable field's null branch after the other fails, coercing "", 0 and
    # false to null on the way; give those values the same second chance.
    if _null_out(args, errors, schema):
        try:
            return _validate(tool.parameters, args)
        except ValidationError as exc:
            errors = exc.errors()
    raise ToolArgumentsError(
        f'Validation failed for tool "{tool_call.name}":\n{_ajv_lines(errors, schema)}\n\n'
        f"Received arguments:\n{js_json_dumps(tool_call.arguments)}"
    ) from None


def _validate(parameters: type[BaseModel], args: Any) -> BaseModel:
    # Strict JSON-mode validation after the AJV coercions: pydantic's own lax coercions
    # ("yes" → True, …) would accept what AJV rejects; JSON mode still takes strings for
    # paths, dates and enums.
    return parameters.model_validate_json(json.dumps(args), strict=True)


def js_json_dumps(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``: integral floats print without ``.0``."""
    return json.dumps(_js_numbers(value), indent=2, ensure_ascii=False)


def _js_numbers(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _js_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_js_numbers(v) for v in value]
    return value


# --------------------------------------------------------------------------- coercion


def coerce_like_ajv(value: Any, schema: Any, root: dict[str, Any]) -> Any:
    """Apply AJV's ``coerceTypes: true`` rules to ``value`` (mutating containers in place)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return value
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        return _coerce_union(value, branches, root)
    types = _types(schema)
    if isinstance(value, dict) and (not types or "object" in types):
        _coerce_object(value, schema, root)
        return value
    if isinstance(value, list) and (not types or "array" in types):
        _coerce_array(value, schema, root)
        return value
    if not types or any(_matches(value, t) for t in types):
        if isinstance(value, float) and "integer" in types and "number" not in types:
            return int(value)  # JSON has one number type: 5.0 is an integer
        return value
    for t in types:
        coerced = _coerce_scalar(value, t)
        if coerced is not _FAIL:
            return coerced
    return value


def _coerce_object(value: dict[str, Any], schema: dict[str, Any], root: dict[str, Any]) -> None:
    props = schema.get("properties")
    if isinstance(props, dict):
        for key, sub in props.items():
            if key in value:
                value[key] = coerce_like_ajv(value[key], sub, root)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        known = props if isinstance(props, dict) else {}
        for key in value:
            if key not in known:
                value[key] = coerce_like_ajv(value[key], extra, root)


def _coerce_array(value: list[Any], schema: dict[str, Any], root: dict[str, Any]) -> None:
    prefix = schema.get("prefixItems")
    items = schema.get("items")
    for index, item in enumerate(value):
        if isinstance(prefix, list) and index < len(prefix):
            value[index] = coerce_like_ajv(item, prefix[index], root)
        elif isinstance(items, dict):
            value[index] = coerce_like_ajv(item, items, root)


def _coerce_union(value: Any, branches: list[Any], root: dict[str, Any]) -> Any:
    resolved = [_resolve(b, root) for b in branches]
    for branch in resolved:
        types = _types(branch) if isinstance(branch, dict) else []
        if not types or any(_matches(value, t) for t in types):
            return coerce_like_ajv(value, branch, root)
    for branch in resolved:
        for t in _types(branch) if isinstance(branch, dict) else []:
            coerced = _coerce_scalar(value, t)
            if coerced is not _FAIL:
                return coerced
    return value


def _resolve(schema: Any, root: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref: str = schema["$ref"]
        target: Any = root
        for part in ref.removeprefix("#/").split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        if target is None:
            return schema
        schema = target
    if isinstance(schema, dict) and isinstance(schema.get("allOf"), list):
        parts = schema["allOf"]
        if len(parts) == 1:
            return _resolve(parts[0], root)
    return schema


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    return []


def _matches(value: Any, json_type: str) -> bool:
    if json_type == "null":
        return value is None
    if json_type == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if json_type == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, _JSON_TYPES.get(json_type, ()))


def _coerce_scalar(value: Any, json_type: str) -> Any:
    if isinstance(value, dict | list):
        return _FAIL
    if json_type == "string":
        return _to_string(value)
    if json_type in ("number", "integer"):
        return _to_number(value, integer=json_type == "integer")
    if json_type == "boolean":
        return _to_boolean(value)
    if json_type == "null":
        return None if value in ("", 0, False) else _FAIL
    return _FAIL


def _to_string(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(_js_numbers(value))
    return _FAIL


def _to_number(value: Any, *, integer: bool) -> Any:
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value.strip():
        try:
            number = float(value)
        except ValueError:
            return _FAIL
        if not math.isfinite(number):
            return _FAIL
        if number.is_integer():
            return int(number)
        return _FAIL if integer else number
    return _FAIL


def _to_boolean(value: Any) -> Any:
    if value is None:
        return False
    if value in ("true", "false"):
        return value == "true"
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    return _FAIL


# --------------------------------------------------------------------------- error text

_TYPE_MESSAGES = {
    "int_type": "must be integer",
    "int_parsing": "must be integer",
    "int_from_float": "must be integer",
    "float_type": "must be number",
    "float_parsing": "must be number",
    "string_type": "must be string",
    "bool_type": "must be boolean",
    "bool_parsing": "must be boolean",
    "list_type": "must be array",
    "tuple_type": "must be array",
    "set_type": "must be array",
    "dict_type": "must be object",
    "model_type": "must be object",
    "model_attributes_type": "must be object",
    "none_required": "must be null",
    "literal_error": "must be equal to one of the allowed values",
    "enum": "must be equal to one of the allowed values",
    "extra_forbidden": "must NOT have additional properties",
}


def _ajv_lines(errors: list[ErrorDetails], schema: dict[str, Any]) -> str:
    """AJV's error list: required before properties at the root, anyOf trailers added."""
    ordered = sorted(errors, key=lambda e: not (e["type"] == "missing" and len(e["loc"]) == 1))
    lines: list[str] = []
    open_: list[tuple[str, ...]] = []  # nullable fields whose errors are being listed
    for err in ordered:
        loc = tuple(str(part) for part in err["loc"])
        inner = loc[:-1] if err["type"] in ("missing", "extra_forbidden") else loc
        prefixes = _nullable_prefixes(inner, schema)
        while open_ and open_[-1] not in prefixes:
            lines += _any_of_trailer(open_.pop())
        open_ += [p for p in prefixes if p not in open_]
        lines.append(_ajv_line(err))
    while open_:
        lines += _any_of_trailer(open_.pop())
    return "\n".join(lines) or "Unknown validation error"


def _any_of_trailer(prefix: tuple[str, ...]) -> list[str]:
    # A nullable field is ``anyOf: [X, {type: null}]``: AJV also reports the null branch
    # and the anyOf itself after X's errors.
    path = "/".join(prefix) or "root"
    return [f"  - {path}: must be null", f"  - {path}: must match a schema in anyOf"]


def _nullable_prefixes(loc: tuple[str, ...], root: dict[str, Any]) -> list[tuple[str, ...]]:
    """The prefixes of ``loc`` (outermost first) whose schema is a nullable ``anyOf``."""
    found: list[tuple[str, ...]] = []
    schema: Any = root
    for depth in range(len(loc) + 1):
        schema = _resolve(schema, root)
        branches = schema.get("anyOf") if isinstance(schema, dict) else None
        if isinstance(branches, list):
            others = [b for b in branches if _resolve(b, root) != {"type": "null"}]
            if len(others) < len(branches):
                found.append(loc[:depth])
            schema = _resolve(others[0], root) if len(others) == 1 else None
        if depth == len(loc) or not isinstance(schema, dict):
            break
        schema = _child_schema(schema, loc[depth])
    return found


def _child_schema(schema: dict[str, Any], part: str) -> Any:
    props = schema.get("properties")
    if isinstance(props, dict) and part in props:
        return props[part]
    if part.isdigit():
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list) and int(part) < len(prefix):
            return prefix[int(part)]
        return schema.get("items")
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _null_out(args: Any, errors: list[ErrorDetails], root: dict[str, Any]) -> bool:
    """Set nullable fields holding "", 0 or false to null where they failed; True if any."""
    changed = False
    for err in errors:
        loc = tuple(str(part) for part in err["loc"])
        for prefix in _nullable_prefixes(loc, root):
            if not prefix:
                continue
            parent = _value_at(args, prefix[:-1])
            key: Any = prefix[-1]
            if isinstance(parent, list) and key.isdigit():
                key = int(key)
            elif not isinstance(parent, dict):
                continue
            try:
                value = parent[key]
            except (KeyError, IndexError):
                continue
            if value is not None and _coerce_scalar(value, "null") is None:
                parent[key] = None
                changed = True
    return changed


def _value_at(value: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _ajv_line(err: ErrorDetails) -> str:
    loc = [str(part) for part in err["loc"]]
    kind = err["type"]
    if kind in ("missing", "extra_forbidden"):
        # AJV reports both at the parent object, naming the property in its params.
        parent, name = loc[:-1], loc[-1] if loc else "root"
        if kind == "missing":
            return f"  - {'/'.join(parent) or name}: must have required property '{name}'"
        return f"  - {'/'.join(parent) or 'root'}: must NOT have additional properties"
    return f"  - {'/'.join(loc) or 'root'}: {_ajv_message(err)}"


def _ajv_message(err: ErrorDetails) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    bounds = {
        "greater_than_equal": (">=", "ge"),
        "greater_than": (">", "gt"),
        "less_than_equal": ("<=", "le"),
        "less_than": ("<", "lt"),
    }
    if kind in bounds:
        op, key = bounds[kind]
        return f"must be {op} {_js_numbers(ctx.get(key))}"
    unit = "characters" if kind.startswith("string_") else "items"
    if kind in ("string_too_short", "too_short"):
        return f"must NOT have fewer than {ctx.get('min_length')} {unit}"
    if kind in ("string_too_long", "too_long"):
        return f"must NOT have more than {ctx.get('max_length')} {unit}"
    if kind == "string_pattern_mismatch":
        return f'must match pattern "{ctx.get("pattern")}"'
    if kind == "multiple_of":
        return f"must be multiple of {_js_numbers(ctx.get('multiple_of'))}"
    return _TYPE_MESSAGES.get(kind, str(err["msg"]))
