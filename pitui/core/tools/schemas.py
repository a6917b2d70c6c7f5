"""The built-in tools' parameter schemas, computed ahead of time from their models.

pydantic makes a model's JSON schema in ~3 M instructions (more for the first one, which
loads its JSON-schema machinery); a ``pitui -p`` turn sends four tools. Each built-in
tool's module stores its entry (:func:`pitui.agent.tool.store_schema`): exactly what
:func:`pitui.agent.tool.computed_schema` gives for its ``parameters`` model.
``tests/core/tools/test_stored_schemas.py`` checks every entry against the model as it
is now; ``python -m tests.core.tools.test_stored_schemas`` rewrites this file after a
model changes.
"""

from __future__ import annotations

from typing import Any

SCHEMAS: dict[str, dict[str, Any]] = {
    "read": {
        "properties": {
            "path": {
                "description": "Path to the file to read (relative or absolute)",
                "type": "string",
            },
            "offset": {
                "description": "Line number to start reading from (1-indexed)",
                "type": "integer",
            },
            "limit": {"description": "Maximum number of lines to read", "type": "integer"},
        },
        "required": ["path"],
        "type": "object",
    },
    "bash": {
        "properties": {
            "command": {"description": "Bash command to execute", "type": "string"},
            "timeout": {
                "description": "Timeout in seconds (optional, no default timeout)",
                "type": "number",
            },
        },
        "required": ["command"],
        "type": "object",
    },
    "edit": {
        "$defs": {
            "EditItem": {
                "additionalProperties": False,
                "properties": {
                    "oldText": {
                        "description": "Exact text for "
                        "one targeted "
                        "replacement. "
                        "It must be "
                        "unique in the "
                        "original file "
                        "and must not "
                        "overlap with "
                        "any other "
                        "edits[].oldText "
                        "in the same "
                        "call.",
                        "type": "string",
                    },
                    "newText": {
                        "description": "Replacement text for this targeted edit.",
                        "type": "string",
                    },
                },
                "required": ["oldText", "newText"],
                "type": "object",
            }
        },
        "additionalProperties": False,
        "properties": {
            "path": {
                "description": "Path to the file to edit (relative or absolute)",
                "type": "string",
            },
            "oldText": {
                "description": "Exact text to find and replace (must match exactly)",
                "type": "string",
            },
            "newText": {"description": "New text to replace the old text with", "type": "string"},
            "edits": {
                "description": "One or more targeted replacements. Each "
                "edit is matched against the original "
                "file, not incrementally. Do not include "
                "overlapping or nested edits. If two "
                "changes touch the same block or nearby "
                "lines, merge them into one edit "
                "instead.",
                "items": {"$ref": "#/$defs/EditItem"},
                "type": "array",
            },
        },
        "required": ["path"],
        "type": "object",
    },
    "write": {
        "properties": {
            "path": {
                "description": "Path to the file to write (relative or absolute)",
                "type": "string",
            },
            "content": {"description": "Content to write to the file", "type": "string"},
        },
        "required": ["path", "content"],
        "type": "object",
    },
    "grep": {
        "properties": {
            "pattern": {
                "description": "Search pattern (regex or literal string)",
                "type": "string",
            },
            "path": {
                "description": "Directory or file to search (default: current directory)",
                "type": "string",
            },
            "glob": {
                "description": "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'",
                "type": "string",
            },
            "ignoreCase": {
                "description": "Case-insensitive search (default: false)",
                "type": "boolean",
            },
            "literal": {
                "description": "Treat pattern as literal string instead of regex (default: false)",
                "type": "boolean",
            },
            "context": {
                "description": "Number of lines to show before and after each match (default: 0)",
                "type": "integer",
            },
            "limit": {
                "description": "Maximum number of matches to return (default: 100)",
                "type": "integer",
            },
        },
        "required": ["pattern"],
        "type": "object",
    },
    "find": {
        "properties": {
            "pattern": {
                "description": "Glob pattern to match files, e.g. "
                "'*.ts', '**/*.json', or "
                "'src/**/*.spec.ts'",
                "type": "string",
            },
            "path": {
                "description": "Directory to search in (default: current directory)",
                "type": "string",
            },
            "limit": {
                "description": "Maximum number of results (default: 1000)",
                "type": "integer",
            },
        },
        "required": ["pattern"],
        "type": "object",
    },
    "ls": {
        "properties": {
            "path": {
                "description": "Directory to list (default: current directory)",
                "type": "string",
            },
            "limit": {
                "description": "Maximum number of entries to return (default: 500)",
                "type": "integer",
            },
        },
        "type": "object",
    },
}
"""Tool name → the JSON schema of its parameters (read-only: tools copy it to send it)."""
