"""Check a call's arguments against the MCP tool's input schema before sending it.

pi validates every tool call against its schema (AJV) and answers a bad call with one
text the model reads; MCP tools get the same here, with the SDK's own JSON Schema
validator (``jsonschema``) and AJV's wording for the usual keywords, so the model sees
``Validation failed for tool "mcp__s__t": …`` instead of whatever the server says. A
schema the validator cannot read (a server's mistake) is left to the server.
"""

from __future__ import annotations

from typing import Any

from pitui.agent.validation import js_json_dumps


def _ajv_message(error: Any) -> str:
    kind, value = error.validator, error.validator_value
    if kind == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        missing = next((name for name in value if name not in present), "?")
        return f"must have required property '{missing}'"
    if kind == "type":
        return f"must be {','.join(value) if isinstance(value, list) else value}"
    messages = {
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "additionalProperties": "must NOT have additional properties",
        "minimum": f"must be >= {value}",
        "maximum": f"must be <= {value}",
        "exclusiveMinimum": f"must be > {value}",
        "exclusiveMaximum": f"must be < {value}",
        "minLength": f"must NOT have fewer than {value} characters",
        "maxLength": f"must NOT have more than {value} characters",
        "minItems": f"must NOT have fewer than {value} items",
        "maxItems": f"must NOT have more than {value} items",
        "pattern": f'must match pattern "{value}"',
        "format": f'must match format "{value}"',
    }
    return messages.get(kind, str(error.message))


def argument_problem(
    tool_name: str, schema: dict[str, Any], arguments: dict[str, Any]
) -> str | None:
    """pi's validation text when ``arguments`` do not fit ``schema``; None when they do."""
    try:
        from jsonschema import validators

        validator = validators.validator_for(schema)(schema)
        errors = list(validator.iter_errors(arguments))
    except Exception:  # an unreadable schema: the server judges the call
        return None
    if not errors:
        return None
    errors.sort(key=lambda e: (e.validator != "required", [str(p) for p in e.path]))
    lines = [f"  - {'/'.join(str(p) for p in e.path) or 'root'}: {_ajv_message(e)}" for e in errors]
    return (
        f'Validation failed for tool "{tool_name}":\n' + "\n".join(lines)
        + f"\n\nReceived arguments:\n{js_json_dumps(arguments)}"
    )  # fmt: skip
