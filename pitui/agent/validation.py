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
    args = copy.deepcopy(tool_call.arguments)
    schema = tool.parameters_schema()
    coerced = coerce_like_ajv(args, schema, schema)
    try:
        return tool.parameters.model_validate(coerced)
    except ValidationError as exc:
        lines = "\n".join(_ajv_line(err) for err in exc.errors()) or "Unknown validation error"
        raise ToolArgumentsError(
            f'Validation failed for tool "{tool_call.name}":\n{lines}\n\n'
            f"Received arguments:\n{js_json_dumps(tool_call.arguments)}"
        ) from None


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
        items = schema.get("items")
        if isinstance(items, dict):
            value[:] = [coerce_like_ajv(item, items, root) for item in value]
        return value
    if not types or any(_matches(value, t) for t in types):
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
        return None if value in ("", 0, False) and value is not True else _FAIL
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
